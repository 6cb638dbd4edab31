/* Allowed: the loader on the core. */
#include <kernel/module.h>
#include "modloader/module_internal.h"
