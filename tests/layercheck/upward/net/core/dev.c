/* Upward: the device layer reaches back into IPv4. */
#include <kernel/module.h>
#include "net/core/netdevice.h"
#include "net/ipv4/inet.h"
