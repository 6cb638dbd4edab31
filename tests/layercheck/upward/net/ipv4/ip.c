/* Allowed: IPv4 on the device layer, its own headers, the core. */
#include "net/core/netdevice.h"
#include "inet.h"
#include <kernel/lib/string.h>
