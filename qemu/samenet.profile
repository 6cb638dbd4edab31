# Both NICs on QEMU's default user network 10.0.2.0/24: each DHCP
# server leases 10.0.2.15, which one host can hold on one device only
# (docs/inet.md, "One address, one device").
smp 2
mem 128M
nic both
boot direct
net user
