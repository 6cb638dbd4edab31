/*
 * .modinfo: the "key=value\0" strings a module declares with MODULE_INFO
 * (kernel/module.h), read from the file before anything is laid out.
 * One checker, then a walk that can trust what the checker accepted:
 * insmod (the module's name), `modinfo` (every entry, also of the
 * kernel's copy kept after load) and autoload (alias= entries) all use
 * it.  The file is hostile: every string is bounded by the section.
 */
#include "modloader/elf_internal.h"

/* At most 40 bytes of an entry, for an error line. */
static void
quote(char *out, size_t len, const char *p, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n && i + 1 < len && i < 40; i++)
		out[i] = p[i] >= 0x20 && p[i] < 0x7f ? p[i] : '?';
	out[i] = '\0';
}

int
elf_modinfo_check(struct elf_modinfo *mi, const void *data, uint32_t size,
                  char *err, size_t errlen)
{
	const char *p = data;
	struct elf_buf b;
	char q[41];
	uint32_t off = 0;

	elf_buf_init(&b, err, errlen);
	if (p == NULL || size == 0 || p[size - 1] != '\0') {
		elf_buf_printf(&b, ".modinfo is empty or not terminated");
		return -ENOEXEC;
	}
	while (off < size) {
		uint32_t n = 0, eq = UINT32_MAX; /* the first '=' */

		if (p[off] == '\0') {
			off++; /* padding between entries */
			continue;
		}
		/* Terminated inside the section: the last byte is NUL. */
		while (p[off + n] != '\0') {
			if (p[off + n] == '=' && eq == UINT32_MAX)
				eq = n;
			n++;
		}
		quote(q, sizeof(q), p + off, n);
		if (n > ELF_MODINFO_ENTRY_MAX) {
			elf_buf_printf(&b,
			               ".modinfo entry '%s..' is longer than "
			               "%u bytes",
			               q, (unsigned)ELF_MODINFO_ENTRY_MAX);
			return -ENOEXEC;
		}
		if (eq == UINT32_MAX || eq == 0) {
			elf_buf_printf(
			    &b, ".modinfo entry '%s' is not key=value", q);
			return -ENOEXEC;
		}
		off += n + 1;
	}
	mi->data = p;
	mi->size = size;
	return 0;
}

int
elf_mod_modinfo(const struct elf_mod *m, struct elf_modinfo *mi, char *err,
                size_t errlen)
{
	int idx = elf_mod_find_section(m, ".modinfo");
	struct elf_buf b;
	const void *data;
	uint32_t size = 0;

	if (idx < 0) {
		elf_buf_init(&b, err, errlen);
		elf_buf_printf(&b, "no .modinfo section: not built as a module "
		                   "(include kernel/module.h, define "
		                   "KBUILD_MODNAME)");
		return -ENOEXEC;
	}
	data = elf_mod_section_data(m, (unsigned int)idx, &size);
	return elf_modinfo_check(mi, data, size, err, errlen);
}

int
elf_modinfo_next(const struct elf_modinfo *mi, uint32_t *pos,
                 struct elf_modinfo_entry *e)
{
	const char *p = mi->data;
	uint32_t off = *pos, eq;

	while (off < mi->size && p[off] == '\0')
		off++;
	if (off >= mi->size)
		return 0;
	for (eq = 0; p[off + eq] != '='; eq++)
		;
	e->key = p + off;
	e->keylen = eq;
	e->value = p + off + eq + 1;
	*pos = off + eq + 1 + (uint32_t)elf_strlen(e->value) + 1;
	return 1;
}

bool
elf_modinfo_has(const struct elf_modinfo *mi, const char *key,
                const char *value)
{
	struct elf_modinfo_entry e;
	uint32_t pos = 0;
	size_t klen = elf_strlen(key);

	while (elf_modinfo_next(mi, &pos, &e) == 1) {
		if (e.keylen != klen)
			continue;
		for (size_t i = 0; i < klen; i++)
			if (e.key[i] != key[i])
				goto next;
		if (elf_strcmp(e.value, value) == 0)
			return true;
	next:;
	}
	return false;
}
