# Four CPUs and both NICs on QEMU user networking: SMP races on the
# network paths (tcp-order.scn).
smp 4
mem 128M
nic both
boot direct
net user
