/* Upward: the core names the IPv4 layer. */
#include <kernel/console/printk.h>
#include <net/ipv4/inet.h>
#include <stdint.h>
