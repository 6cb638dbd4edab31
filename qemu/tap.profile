# The e1000 on a tap device whose other end is in a network namespace
# the harness creates for the run: the namespace's Linux stack is the
# peer (${PEER}, the guest takes ${GUEST}/24; docs/harness.md).  Needs
# root; elsewhere its runs are skipped.
smp 2
mem 128M
nic e1000
boot direct
net tap
