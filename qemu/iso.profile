# The real boot path: GRUB from build/modref.iso (make iso).  Command line
# and modules come from the ISO's grub.cfg, so scenarios using `cmdline`
# or `modules` cannot run on this profile.
smp 2
mem 128M
nic both
boot iso
