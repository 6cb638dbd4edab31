# The everyday machine: two CPUs, both NICs on QEMU user networking,
# kernel loaded directly with -kernel (fast; cmdline and modules work).
smp 2
mem 128M
nic both
boot direct
net user
