/*
 * The load pipeline in one call, for the kernel's module layer and the
 * fuzzer: check, lay out, copy, resolve, relocate.  Memory comes from the
 * caller's ops; a failure at any phase gives back exactly what was taken,
 * in reverse order.
 */
#include "modloader/elf_internal.h"

int
elf_mod_load(struct elf_mod *m, const void *data, size_t size,
             const struct elf_mod_load_ops *ops, void **image, char *err,
             size_t errlen)
{
	void *scratch, *img;
	size_t scratch_size;
	uint32_t base;
	int ret;

	*image = NULL;
	ret = elf_mod_check(m, data, size, err, errlen);
	if (ret != 0)
		return ret;

	scratch_size = elf_mod_scratch_size(m);
	scratch = ops->alloc_scratch(ops->ctx, scratch_size);
	if (scratch == NULL)
		return elf_err(m, -ENOMEM,
		               "no memory for %u bytes of loader scratch",
		               (unsigned int)scratch_size);
	ret = elf_mod_layout(m, scratch, scratch_size);
	if (ret != 0)
		goto out_scratch;

	img = ops->alloc_image(ops->ctx, m->image_size, m->ro_size, &base);
	if (img == NULL) {
		ret = elf_err(m, -ENOMEM, "no memory for a 0x%x-byte image",
		              m->image_size);
		goto out_scratch;
	}
	ret = elf_mod_copy(m, img);
	if (ret != 0)
		goto out_image;
	ret = elf_mod_resolve(m, base, ops->resolve, ops->ctx);
	if (ret != 0)
		goto out_image;
	ret = elf_mod_relocate(m, img);
	if (ret != 0)
		goto out_image;
	*image = img;
	return 0;

out_image:
	ops->free_image(ops->ctx, img);
out_scratch:
	ops->free_scratch(ops->ctx, scratch);
	m->scratch = NULL;
	m->sec_off = NULL;
	m->sym_addr = NULL;
	m->stage = ELF_MOD_EMPTY;
	return ret;
}
