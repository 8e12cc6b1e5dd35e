/* embed: translate a PTX file for one AMDGPU target through libptx2amd's C API, print its
 * kernels and their metadata, and write the code object.
 *
 *   usage: embed FILE.ptx TARGET [OUT.hsaco]      (OUT defaults to FILE.TARGET.hsaco)
 *
 * Exit status: 0 when every kernel was translated, 1 otherwise or on errors, 2 on usage errors. */
#include <ptx2amd/ptx2amd.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  char *data = NULL;
  size_t cap = 0, n = 0, got;
  do {
    if (n == cap) {
      cap = cap ? 2 * cap : 1 << 16;
      char *bigger = realloc(data, cap);
      if (!bigger) {
        free(data);
        fclose(f);
        return NULL;
      }
      data = bigger;
    }
    got = fread(data + n, 1, cap - n, f);
    n += got;
  } while (got > 0);
  fclose(f);
  *size = n;
  return data;
}

static void print_kernel(const ptx2amd_result *res, size_t k) {
  const char *name, *reason;
  int translated;
  ptx2amd_result_kernel_name(res, k, &name);
  ptx2amd_result_kernel_translated(res, k, &translated, &reason);
  printf("kernel %s: %s\n", name, translated ? "translated" : "not translated");
  if (!translated) {
    printf("  reason: %s", reason);
    return;
  }
  static const struct {
    ptx2amd_kernel_property prop;
    const char *label;
  } props[] = {
      {PTX2AMD_KERNEL_KERNARG_SIZE, "kernarg_size"},
      {PTX2AMD_KERNEL_EXPLICIT_KERNARG_SIZE, "explicit_kernarg_size"},
      {PTX2AMD_KERNEL_STATIC_LDS_SIZE, "static_lds"},
      {PTX2AMD_KERNEL_USES_DYNAMIC_LDS, "dynamic_lds"},
      {PTX2AMD_KERNEL_SCRATCH_SIZE, "scratch"},
      {PTX2AMD_KERNEL_VGPR_COUNT, "vgpr"},
      {PTX2AMD_KERNEL_SGPR_COUNT, "sgpr"},
      {PTX2AMD_KERNEL_AGPR_COUNT, "agpr"},
      {PTX2AMD_KERNEL_WAVEFRONT_SIZE, "wave_size"},
      {PTX2AMD_KERNEL_MAX_FLAT_WORKGROUP_SIZE, "max_workgroup_size"},
  };
  for (size_t i = 0; i < sizeof props / sizeof props[0]; ++i) {
    uint64_t v = 0;
    ptx2amd_result_kernel_property(res, k, props[i].prop, &v);
    printf("  %s: %llu\n", props[i].label, (unsigned long long)v);
  }
  uint64_t args = 0;
  ptx2amd_result_kernel_property(res, k, PTX2AMD_KERNEL_EXPLICIT_ARG_COUNT, &args);
  for (size_t a = 0; a < args; ++a) {
    uint64_t offset, size;
    const char *kind;
    ptx2amd_result_kernel_arg(res, k, a, &offset, &size, &kind);
    printf("  arg %zu: offset %llu size %llu %s\n", a, (unsigned long long)offset,
           (unsigned long long)size, kind);
  }
}

int main(int argc, char **argv) {
  if (argc < 3 || argc > 4) {
    fprintf(stderr, "usage: embed FILE.ptx TARGET [OUT.hsaco]\n");
    return 2;
  }
  size_t size;
  char *ptx = read_file(argv[1], &size);
  if (!ptx) {
    fprintf(stderr, "embed: cannot read '%s'\n", argv[1]);
    return 1;
  }
  int major, minor, patch;
  ptx2amd_get_version(&major, &minor, &patch);
  printf("libptx2amd %d.%d.%d\n", major, minor, patch);

  ptx2amd_context *ctx;
  ptx2amd_status s = ptx2amd_context_create(&ctx);
  if (s == PTX2AMD_SUCCESS)
    s = ptx2amd_context_set_target(ctx, argv[2]);
  if (s != PTX2AMD_SUCCESS) {
    fprintf(stderr, "embed: %s: %s\n", argv[2], ptx2amd_status_string(s));
    free(ptx);
    return 1;
  }
  ptx2amd_result *res;
  s = ptx2amd_translate_ptx(ctx, ptx, size, argv[1], NULL, &res);
  free(ptx);
  int status = 0;
  if (res) {
    const char *diags;
    ptx2amd_result_diagnostics(res, &diags);
    fputs(diags, stderr);
  }
  if (s != PTX2AMD_SUCCESS) {
    fprintf(stderr, "embed: translation failed: %s\n", ptx2amd_status_string(s));
    ptx2amd_result_destroy(res);
    ptx2amd_context_destroy(ctx);
    return 1;
  }

  size_t kernels;
  ptx2amd_result_kernel_count(res, &kernels);
  printf("target %s: %zu kernel(s)\n", argv[2], kernels);
  for (size_t k = 0; k < kernels; ++k) {
    int translated;
    ptx2amd_result_kernel_translated(res, k, &translated, NULL);
    if (!translated)
      status = 1;
    print_kernel(res, k);
  }

  char out[4096];
  if (argc == 4)
    snprintf(out, sizeof out, "%s", argv[3]);
  else
    snprintf(out, sizeof out, "%s.%s.hsaco", argv[1], argv[2]);
  const void *obj;
  size_t obj_size;
  ptx2amd_result_code_object(res, &obj, &obj_size);
  FILE *f = fopen(out, "wb");
  if (!f || fwrite(obj, 1, obj_size, f) != obj_size || fclose(f) != 0) {
    fprintf(stderr, "embed: cannot write '%s'\n", out);
    status = 1;
  } else {
    printf("wrote %s (%zu bytes)\n", out, obj_size);
  }
  ptx2amd_result_destroy(res);
  ptx2amd_context_destroy(ctx);
  return status;
}
