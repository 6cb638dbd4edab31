# Four CPUs with both NICs on QEMU user networking: the lifetime stress
# (stress-lifetime-*.scn) needs CPUs to race each other and real drivers.
smp 4
mem 128M
nic both
boot direct
net user
