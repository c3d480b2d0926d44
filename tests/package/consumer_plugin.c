/* SPDX-License-Identifier: MIT */
/* A one-hook plugin built out of tree against the installed plugin.h. */
#include <stdlib.h>
#include <string.h>
#include <zeroforge/plugin.h>

static void release(char* text) { free(text); }

static int output_hook(const zf_context* ctx, const char* input, char** output, char** error) {
  static const char patch[] = "{\"patch\": {\"from_consumer\": true}}";
  (void)ctx;
  (void)input;
  (void)error;
  *output = (char*)malloc(sizeof patch);
  if (!*output) return ZF_ERROR;
  memcpy(*output, patch, sizeof patch);
  return ZF_OK;
}

static const zf_plugin descriptor = {ZF_PLUGIN_ABI_VERSION,
                                     sizeof(zf_plugin),
                                     "consumer",
                                     "1.0.0",
                                     "package test",
                                     release,
                                     NULL,
                                     NULL,
                                     NULL,
                                     output_hook,
                                     NULL,
                                     NULL,
                                     NULL,
                                     NULL /* path_options */};

ZF_PLUGIN_EXPORT const zf_plugin* zf_plugin_entry(uint32_t host_abi_version) {
  (void)host_abi_version;
  return &descriptor;
}
