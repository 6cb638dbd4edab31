# The kernel's objects from kernel/arch/ (the top Makefile includes every
# folder's objs.mk; a source not listed here is a build error).  In
# link order: the C files, then the assembly.
KSRCS += \
	kernel/arch/acpi.c \
	kernel/arch/cpu.c \
	kernel/arch/ioapic.c \
	kernel/arch/lapic.c \
	kernel/arch/multiboot.c \
	kernel/arch/pic.c \
	kernel/arch/smp.c \
	kernel/arch/trap.c \
	kernel/arch/uart.c \
	kernel/arch/probe.S \
	kernel/arch/switch.S
