# Only the virtio-net NIC, on QEMU user networking: with it the first NIC
# (eth0, where hostfwd forwards) is virtio-net, so one scenario covers
# each driver by running on `default` (eth0 = e1000) and `virtio`.
smp 2
mem 128M
nic virtio
boot direct
net user
