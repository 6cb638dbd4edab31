# Uniprocessor, no NICs: catches code that only works because another
# CPU happens to run.
smp 1
mem 128M
nic none
