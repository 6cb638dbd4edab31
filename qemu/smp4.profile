# Four CPUs, no NICs: more contention for refcount and lock tests.
smp 4
mem 128M
nic none
