# Only virtio-net, on a tap in the run's namespace (see tap.profile): with
# `tap`, one scenario covers each driver against the Linux peer.
smp 2
mem 128M
nic virtio
boot direct
net tap
