# Both NICs on QEMU's dgram backend: every Ethernet frame is one UDP
# datagram between QEMU and a host tool (tests/net/rawpeer), on loopback
# ports the harness picks: ${NET0_QEMU}/${NET0_PEER} for the e1000,
# ${NET1_QEMU}/${NET1_PEER} for the virtio-net NIC.
smp 2
mem 128M
nic both
boot direct
net dgram
