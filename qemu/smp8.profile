# The largest SMP configuration the kernel supports; no NICs.
smp 8
mem 256M
nic none
