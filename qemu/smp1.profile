# Uniprocessor: catches code that only works because another CPU runs.
smp 1
mem 128M
nic both
