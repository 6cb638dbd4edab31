# The everyday machine: two CPUs, both NICs on QEMU user networking,
# kernel loaded directly with -kernel (fast; cmdline and modules work).
# Each NIC has a user network of its own, so `dhcp eth0` and `dhcp eth1`
# both get a lease: eth0 (e1000) on QEMU's 10.0.2.0/24, eth1
# (virtio-net) on 10.0.3.0/24 (gateway and DHCP server 10.0.3.2, lease
# 10.0.3.15).  `samenet` puts both on 10.0.2.0/24.
smp 2
mem 128M
nic both
boot direct
net user
subnet1 10.0.3.0/24
