/*
 * ELF32 definitions for the i386 module loader.
 *
 * Only what an ET_REL loader needs.  Names and values come from the
 * System V gABI ("Object Files", chapter 4: ELF Header, Sections, Symbol
 * Table, Relocation) and the i386 psABI ("Relocation Types", table 4.x).
 * Everything here is plain data: no functions, no libc.
 */
#ifndef MODLOADER_ELF_H
#define MODLOADER_ELF_H

#include <stdint.h>

typedef uint32_t Elf32_Addr;
typedef uint16_t Elf32_Half;
typedef uint32_t Elf32_Off;
typedef int32_t Elf32_Sword;
typedef uint32_t Elf32_Word;

/* gABI 4.1: e_ident[] indices and values. */
#define EI_NIDENT     16
#define EI_MAG0       0
#define EI_MAG1       1
#define EI_MAG2       2
#define EI_MAG3       3
#define EI_CLASS      4
#define EI_DATA       5
#define EI_VERSION    6
#define EI_OSABI      7
#define ELFMAG0       0x7f
#define ELFMAG1       'E'
#define ELFMAG2       'L'
#define ELFMAG3       'F'
#define ELFCLASS32    1
#define ELFDATA2LSB   1
#define EV_CURRENT    1
#define ELFOSABI_SYSV 0
#define ELFOSABI_GNU  3
#define ET_REL        1
#define EM_386        3

typedef struct {
	unsigned char e_ident[EI_NIDENT];
	Elf32_Half e_type;
	Elf32_Half e_machine;
	Elf32_Word e_version;
	Elf32_Addr e_entry;
	Elf32_Off e_phoff;
	Elf32_Off e_shoff;
	Elf32_Word e_flags;
	Elf32_Half e_ehsize;
	Elf32_Half e_phentsize;
	Elf32_Half e_phnum;
	Elf32_Half e_shentsize;
	Elf32_Half e_shnum;
	Elf32_Half e_shstrndx;
} Elf32_Ehdr;

/* gABI 4.2: special section indices. */
#define SHN_UNDEF     0
#define SHN_LORESERVE 0xff00
#define SHN_ABS       0xfff1
#define SHN_COMMON    0xfff2
#define SHN_XINDEX    0xffff

/* gABI 4.2: section types. */
#define SHT_NULL          0
#define SHT_PROGBITS      1
#define SHT_SYMTAB        2
#define SHT_STRTAB        3
#define SHT_RELA          4
#define SHT_HASH          5
#define SHT_DYNAMIC       6
#define SHT_NOTE          7
#define SHT_NOBITS        8
#define SHT_REL           9
#define SHT_DYNSYM        11
#define SHT_INIT_ARRAY    14
#define SHT_FINI_ARRAY    15
#define SHT_PREINIT_ARRAY 16
#define SHT_GROUP         17
#define SHT_SYMTAB_SHNDX  18

/* gABI 4.2: section flags. */
#define SHF_WRITE     0x1
#define SHF_ALLOC     0x2
#define SHF_EXECINSTR 0x4
#define SHF_MERGE     0x10
#define SHF_STRINGS   0x20
#define SHF_INFO_LINK 0x40
#define SHF_GROUP     0x200
#define SHF_TLS       0x400

typedef struct {
	Elf32_Word sh_name;
	Elf32_Word sh_type;
	Elf32_Word sh_flags;
	Elf32_Addr sh_addr;
	Elf32_Off sh_offset;
	Elf32_Word sh_size;
	Elf32_Word sh_link;
	Elf32_Word sh_info;
	Elf32_Word sh_addralign;
	Elf32_Word sh_entsize;
} Elf32_Shdr;

/* gABI 4.3: symbol binding and type, packed in st_info. */
#define ELF32_ST_BIND(i)    ((unsigned char)(i) >> 4)
#define ELF32_ST_TYPE(i)    ((unsigned char)(i)&0xf)
#define ELF32_ST_INFO(b, t) ((unsigned char)(((b) << 4) | ((t)&0xf)))
#define STB_LOCAL           0
#define STB_GLOBAL          1
#define STB_WEAK            2
#define STT_NOTYPE          0
#define STT_OBJECT          1
#define STT_FUNC            2
#define STT_SECTION         3
#define STT_FILE            4
#define STT_COMMON          5
#define STT_TLS             6
#define STT_GNU_IFUNC       10

typedef struct {
	Elf32_Word st_name;
	Elf32_Addr st_value;
	Elf32_Word st_size;
	unsigned char st_info;
	unsigned char st_other;
	Elf32_Half st_shndx;
} Elf32_Sym;

/* gABI 4.4: relocation entries; i386 uses the implicit-addend form. */
#define ELF32_R_SYM(i)     ((i) >> 8)
#define ELF32_R_TYPE(i)    ((unsigned char)(i))
#define ELF32_R_INFO(s, t) (((s) << 8) + (unsigned char)(t))

typedef struct {
	Elf32_Addr r_offset;
	Elf32_Word r_info;
} Elf32_Rel;

typedef struct {
	Elf32_Addr r_offset;
	Elf32_Word r_info;
	Elf32_Sword r_addend;
} Elf32_Rela;

/* i386 psABI, "Relocation Types", plus the GNU TLS and GOT32X additions. */
#define R_386_NONE          0
#define R_386_32            1
#define R_386_PC32          2
#define R_386_GOT32         3
#define R_386_PLT32         4
#define R_386_COPY          5
#define R_386_GLOB_DAT      6
#define R_386_JMP_SLOT      7
#define R_386_RELATIVE      8
#define R_386_GOTOFF        9
#define R_386_GOTPC         10
#define R_386_TLS_TPOFF     14
#define R_386_TLS_IE        15
#define R_386_TLS_GOTIE     16
#define R_386_TLS_LE        17
#define R_386_TLS_GD        18
#define R_386_TLS_LDM       19
#define R_386_16            20
#define R_386_PC16          21
#define R_386_8             22
#define R_386_PC8           23
#define R_386_TLS_GD_32     24
#define R_386_TLS_GD_PUSH   25
#define R_386_TLS_GD_CALL   26
#define R_386_TLS_GD_POP    27
#define R_386_TLS_LDM_32    28
#define R_386_TLS_LDM_PUSH  29
#define R_386_TLS_LDM_CALL  30
#define R_386_TLS_LDM_POP   31
#define R_386_TLS_LDO_32    32
#define R_386_TLS_IE_32     33
#define R_386_TLS_LE_32     34
#define R_386_TLS_DTPMOD32  35
#define R_386_TLS_DTPOFF32  36
#define R_386_TLS_TPOFF32   37
#define R_386_SIZE32        38
#define R_386_TLS_GOTDESC   39
#define R_386_TLS_DESC_CALL 40
#define R_386_TLS_DESC      41
#define R_386_IRELATIVE     42
#define R_386_GOT32X        43

#endif /* MODLOADER_ELF_H */
