/* SPDX-License-Identifier: MIT */
/*
 * A loadable library that begins a region and never ends it, for
 * region_app's `unloaded` mode (tests/integration/region_unloaded.sh): its
 * name and call site are string literals of this library, which the
 * application unloads before the report at exit reads them.
 */
#include <ompbench.h>

__attribute__((visibility("default"))) void region_plugin_begin(void);

void region_plugin_begin(void)
{
    ompb_region_begin("plugin_open");
}
