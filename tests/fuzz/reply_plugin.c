/* SPDX-License-Identifier: MIT */
/* The plugin of plugin_reply_fuzz: every hook and function answers with the reply the fuzz
 * target set through zf_fuzz_set_reply (a NULL reply: the hook sets no output). */
#include <stdlib.h>
#include <string.h>
#include <zeroforge/plugin.h>

static char* reply = NULL;

ZF_PLUGIN_EXPORT void zf_fuzz_set_reply(const char* text, size_t size);
void zf_fuzz_set_reply(const char* text, size_t size) {
  free(reply);
  reply = NULL;
  if (!text) return;
  reply = (char*)malloc(size + 1);
  if (!reply) abort();
  memcpy(reply, text, size);
  reply[size] = '\0';
}

static void release(char* text) { free(text); }

static int answer(const zf_context* ctx, const char* input, char** output, char** error) {
  (void)ctx;
  (void)input;
  (void)error;
  if (reply) {
    size_t n = strlen(reply) + 1;
    *output = (char*)malloc(n);
    if (!*output) abort();
    memcpy(*output, reply, n);
  }
  return ZF_OK;
}

static const zf_function reply_filter = {
    sizeof(zf_function), ZF_FUNCTION_FILTER, "reply", NULL, 0, -1, answer};
static const zf_function reply_test = {
    sizeof(zf_function), ZF_FUNCTION_TEST, "reply", NULL, 0, -1, answer};
static const zf_function reply_global = {
    sizeof(zf_function), ZF_FUNCTION_GLOBAL, "reply", NULL, 0, -1, answer};
static const zf_function* const functions[] = {&reply_filter, &reply_test, &reply_global, NULL};

static const zf_plugin descriptor = {.abi_version = ZF_PLUGIN_ABI_VERSION,
                                     .struct_size = sizeof(zf_plugin),
                                     .name = "fuzz_reply",
                                     .version = "1.0.0",
                                     .free_string = release,
                                     .values_hook = answer,
                                     .output_hook = answer,
                                     .functions = functions};

ZF_PLUGIN_EXPORT const zf_plugin* zf_plugin_entry(uint32_t host_abi_version) {
  (void)host_abi_version;
  return &descriptor;
}
