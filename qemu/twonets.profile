# Both NICs on QEMU user networking, each on its own subnet: eth0
# (e1000) on QEMU's 10.0.2.0/24, eth1 (virtio-net) on 10.0.3.0/24 (its
# gateway and DHCP server are 10.0.3.2, the lease 10.0.3.15), so both
# can hold a DHCP lease at once.
smp 2
mem 128M
nic both
boot direct
net user
subnet1 10.0.3.0/24
