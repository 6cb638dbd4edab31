# Two CPUs, no NICs: SMP core tests without network drivers.
smp 2
mem 128M
nic none
