# Loadable drivers (included by the top Makefile before modloader/modules.mk):
# every drivers/net/NAME.c becomes $(BUILD)/modules/NAME.ko.  The PCI core
# (drivers/*.c) is built into the kernel through KDIRS.
MODULE_DIRS += drivers/net
