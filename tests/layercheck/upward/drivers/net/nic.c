/* A NIC driver: the bus and the device layer are fine, a protocol is not. */
#include <drivers/pci.h>
#include <net/core/netdevice.h>
#include "net/ipv4/arp.h"
