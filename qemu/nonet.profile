# No network hardware at all: the stack must cope with zero devices.
smp 2
mem 128M
nic none
net none
