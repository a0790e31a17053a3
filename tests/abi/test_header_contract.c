/*
 * tests/abi/test_header_contract.c - the public headers honour the API
 * contract (design/API.md): every ns_* function named in API.md's code
 * blocks is declared in include/ with NS_API, with the same return type and
 * the same parameter types in the same order; and every ns_* function the
 * headers declare carries NS_API and is exported by the shared library.
 *
 * Paths: NS_DESIGN_DIR (default ../shared/design) and NS_INCLUDE_DIR
 * (default include), relative to the directory make runs in. Without
 * API.md the contract tests print a SKIP line and pass; the header parsing
 * tests still run.
 *
 * This is a text check, not a C parser: it relies on the house style (one
 * declaration per statement, return type on the line of the name), which
 * the sanity tests below pin down.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>

#include "abi_test.h"

/* Functions whose signature deliberately differs from API.md ("implement the
   closest thing, keep the name, and explain why"): name, then the reason.
   Their presence is still checked. */
static const char *const signature_exceptions[][2] = {
    {NULL, NULL},
};

enum { MAX_DECLS = 1024, MAX_SIG = 512 };

typedef struct decl {
  char name[96];
  char sig[MAX_SIG]; /* normalized "ret(type,type)" */
  int has_api;
} decl;

typedef struct decl_set {
  decl d[MAX_DECLS];
  int n;
} decl_set;

static const char *env_or(const char *var, const char *dflt) {
  const char *v = getenv(var);
  return v && *v ? v : dflt;
}

/* Whole file as a NUL-terminated string, or NULL if it cannot be read. */
static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return NULL;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
    n += got;
    if (n + 1 >= cap) {
      char *nb = realloc(buf, cap *= 2);
      if (nb == NULL)
        free(buf);
      buf = nb;
    }
  }
  fclose(f);
  if (buf)
    buf[n] = '\0';
  return buf;
}

/* Blanks comments and preprocessor lines (keeping newlines). */
static void strip_comments_and_cpp(char *s) {
  int line_start = 1;
  for (char *p = s; *p; p++) {
    if (p[0] == '/' && p[1] == '*') {
      for (; *p && !(p[0] == '*' && p[1] == '/'); p++)
        if (*p != '\n')
          *p = ' ';
      if (*p) {
        p[0] = p[1] = ' ';
        p++;
      }
    } else if (p[0] == '/' && p[1] == '/') {
      for (; *p && *p != '\n'; p++)
        *p = ' ';
      p--;
    } else if (line_start && *p == '#') {
      for (; *p && *p != '\n'; p++)
        *p = ' ';
      p--;
    }
    if (*p == '\n')
      line_start = 1;
    else if (!isspace((unsigned char)*p))
      line_start = 0;
  }
}

static int is_ident(int c) { return isalnum(c) || c == '_'; }

/* Appends text[a, b) to out with whitespace collapsed, spaces dropped next to
   '*', '(', ')' and ','. */
static void append_norm(char *out, size_t cap, const char *a, const char *b) {
  size_t n = strlen(out);
  int pending_space = 0;
  for (const char *p = a; p < b && n + 2 < cap; p++) {
    if (isspace((unsigned char)*p)) {
      pending_space = n > 0;
      continue;
    }
    if (pending_space && is_ident(*p) && n > 0 && is_ident(out[n - 1]))
      out[n++] = ' ';
    pending_space = 0;
    out[n++] = *p;
  }
  out[n] = '\0';
}

/* One parameter's type: its text without the trailing parameter name. */
static void append_param_type(char *out, size_t cap, const char *a, const char *b) {
  while (a < b && isspace((unsigned char)*a))
    a++;
  while (b > a && isspace((unsigned char)b[-1]))
    b--;
  const char *name = b;
  while (name > a && is_ident(name[-1]))
    name--;
  /* A lone word (void, or an unnamed parameter) has no name to drop. */
  int only_word = name == a;
  int keyword_before = 0;
  if (!only_word) {
    const char *q = name;
    while (q > a && isspace((unsigned char)q[-1]))
      q--;
    keyword_before = q > a && (strncmp(name, "const", 5) == 0 && !is_ident(name[5]));
  }
  append_norm(out, cap, a, (only_word || keyword_before) ? b : name);
}

/* Parses the declaration whose name starts at `name` (text = whole buffer). */
static int parse_decl(const char *text, const char *name, decl *out) {
  const char *end = name;
  while (is_ident(*end))
    end++;
  const char *open = end;
  while (isspace((unsigned char)*open))
    open++;
  if (*open != '(' || (size_t)(end - name) >= sizeof out->name)
    return 0;
  /* Return type: back to the start of the line or statement. */
  const char *start = name;
  while (start > text && !strchr(";{}\n", start[-1]))
    start--;
  memset(out, 0, sizeof *out);
  memcpy(out->name, name, (size_t)(end - name));
  const char *api = strstr(start, "NS_API");
  out->has_api = api != NULL && api < name;
  if (out->has_api)
    start = api + 6;
  const char *rt = start;
  while (rt < name && isspace((unsigned char)*rt))
    rt++;
  if (strncmp(rt, "typedef", 7) == 0 || rt == name)
    return 0; /* typedef, or a call / macro use without a return type */
  append_norm(out->sig, sizeof out->sig, rt, name);
  strcat(out->sig, "(");
  const char *p = open + 1, *param = p;
  int depth = 0;
  for (; *p && !(depth == 0 && *p == ')'); p++) {
    if (*p == '(')
      depth++;
    else if (*p == ')')
      depth--;
    else if (*p == ',' && depth == 0) {
      append_param_type(out->sig, sizeof out->sig, param, p);
      strcat(out->sig, ",");
      param = p + 1;
    }
  }
  if (*p != ')')
    return 0;
  append_param_type(out->sig, sizeof out->sig, param, p);
  strcat(out->sig, ")");
  return 1;
}

/* Every "ns_xxx (" in (comment-free) text that parses as a declaration. */
static void collect_decls(const char *text, decl_set *set) {
  for (const char *p = text; (p = strstr(p, "ns_")) != NULL; p++) {
    if (p > text && is_ident(p[-1]))
      continue;
    decl d;
    if (parse_decl(text, p, &d) && set->n < MAX_DECLS)
      set->d[set->n++] = d;
  }
}

static const decl *find_decl(const decl_set *set, const char *name) {
  for (int i = 0; i < set->n; i++)
    if (strcmp(set->d[i].name, name) == 0)
      return &set->d[i];
  return NULL;
}

static void add_header(decl_set *set, const char *path) {
  char *text = slurp(path);
  ck_assert_msg(text != NULL, "cannot read %s", path);
  strip_comments_and_cpp(text);
  collect_decls(text, set);
  free(text);
}

/* Declarations of include/netsched.h and include/netsched/\*.h. */
static decl_set *header_decls(void) {
  const char *inc = env_or("NS_INCLUDE_DIR", "include");
  decl_set *set = calloc(1, sizeof *set);
  char path[4096];
  snprintf(path, sizeof path, "%s/netsched.h", inc);
  add_header(set, path);
  snprintf(path, sizeof path, "%s/netsched", inc);
  DIR *dir = opendir(path);
  ck_assert_msg(dir != NULL, "cannot open %s", path);
  struct dirent *e;
  while ((e = readdir(dir)) != NULL) {
    size_t len = strlen(e->d_name);
    if (len > 2 && strcmp(e->d_name + len - 2, ".h") == 0) {
      snprintf(path, sizeof path, "%s/netsched/%s", inc, e->d_name);
      add_header(set, path);
    }
  }
  closedir(dir);
  return set;
}

/* Declarations inside API.md's fenced code blocks; NULL if API.md is absent. */
static decl_set *contract_decls(const char **path_out) {
  static char path[4096];
  snprintf(path, sizeof path, "%s/API.md", env_or("NS_DESIGN_DIR", "../shared/design"));
  *path_out = path;
  char *md = slurp(path);
  if (md == NULL)
    return NULL;
  /* Keep only code-block text. */
  int in_code = 0;
  for (char *line = md; *line;) {
    char *nl = strchr(line, '\n');
    char *next = nl ? nl + 1 : line + strlen(line);
    int fence = strncmp(line, "```", 3) == 0;
    if (fence || !in_code)
      for (char *q = line; q < next; q++)
        if (*q != '\n')
          *q = ' ';
    if (fence)
      in_code = !in_code;
    line = next;
  }
  strip_comments_and_cpp(md);
  decl_set *set = calloc(1, sizeof *set);
  collect_decls(md, set);
  free(md);
  return set;
}

static const char *signature_exception(const char *name) {
  for (size_t i = 0; signature_exceptions[i][0] != NULL; i++)
    if (strcmp(signature_exceptions[i][0], name) == 0)
      return signature_exceptions[i][1];
  return NULL;
}

/* The header parser sees what it must: known declarations, normalized. */
START_TEST(test_header_parser_sanity) {
  decl_set *h = header_decls();
  ck_assert_int_gt(h->n, 60);
  const decl *d = find_decl(h, "ns_version");
  ck_assert_ptr_nonnull(d);
  ck_assert_str_eq(d->sig, "const char*(void)");
  d = find_decl(h, "ns_cluster_commit");
  ck_assert_ptr_nonnull(d);
  ck_assert_str_eq(d->sig, "int(ns_cluster*,const ns_job*,const ns_placement*)");
  d = find_decl(h, "ns_cassini_rank");
  ck_assert_ptr_nonnull(d);
  ck_assert_str_eq(d->sig, "int(ns_candidate*const*,size_t,const ns_cassini_opts*,size_t*,double*)");
  ck_assert_ptr_null(find_decl(h, "ns_status")); /* a typedef, not a function */
  free(h);
}
END_TEST

/* Every function the headers declare is exported (NS_API). */
START_TEST(test_header_decls_have_ns_api) {
  decl_set *h = header_decls();
  char missing[2048] = "";
  for (int i = 0; i < h->n; i++)
    if (!h->d[i].has_api && strlen(missing) + 100 < sizeof missing) {
      strcat(missing, " ");
      strcat(missing, h->d[i].name);
    }
  free(h);
  ck_assert_msg(missing[0] == '\0', "declared without NS_API:%s", missing);
}
END_TEST

/* Every ns_* function of API.md is declared in include/. */
START_TEST(test_api_md_functions_declared) {
  const char *path;
  decl_set *api = contract_decls(&path);
  if (api == NULL) {
    printf("SKIP test_api_md_functions_declared: %s not found (set NS_DESIGN_DIR)\n", path);
    return;
  }
  ck_assert_msg(api->n > 60, "parsed only %d functions from %s", api->n, path);
  ck_assert_ptr_nonnull(find_decl(api, "ns_cluster_commit"));
  decl_set *h = header_decls();
  char missing[4096] = "";
  for (int i = 0; i < api->n; i++)
    if (!find_decl(h, api->d[i].name) && strlen(missing) + 100 < sizeof missing) {
      strcat(missing, " ");
      strcat(missing, api->d[i].name);
    }
  free(api);
  free(h);
  ck_assert_msg(missing[0] == '\0', "API.md functions not declared in include/:%s", missing);
}
END_TEST

/* ... with API.md's return type and parameter types, in API.md's order. */
START_TEST(test_api_md_signatures_match) {
  const char *path;
  decl_set *api = contract_decls(&path);
  if (api == NULL) {
    printf("SKIP test_api_md_signatures_match: %s not found (set NS_DESIGN_DIR)\n", path);
    return;
  }
  decl_set *h = header_decls();
  char diff[8192] = "";
  for (int i = 0; i < api->n; i++) {
    const decl *d = find_decl(h, api->d[i].name);
    if (d == NULL || strcmp(d->sig, api->d[i].sig) == 0 || signature_exception(d->name))
      continue;
    char line[1400];
    snprintf(line, sizeof line, "\n  %s: API.md %s, header %s", d->name, api->d[i].sig, d->sig);
    if (strlen(diff) + strlen(line) < sizeof diff)
      strcat(diff, line);
  }
  free(api);
  free(h);
  ck_assert_msg(diff[0] == '\0', "signatures differ from API.md:%s", diff);
}
END_TEST

/* Every function the headers declare is exported by the shared library
   (NS_LIBRARY, default lib/libnetsched.so): declared but unimplemented
   functions would only fail at a consumer's link time. */
START_TEST(test_header_decls_exported) {
  const char *lib = env_or("NS_LIBRARY", "lib/libnetsched.so");
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "nm -D --defined-only '%s'", lib);
  FILE *f = popen(cmd, "r");
  ck_assert_ptr_nonnull(f);
  size_t cap = 1 << 16, n = 0;
  char *syms = calloc(cap, 1), line[512];
  while (fgets(line, sizeof line, f)) {
    char addr[64], type[8], name[400];
    if (sscanf(line, "%63s %7s %399s", addr, type, name) != 3)
      continue;
    char *at = strchr(name, '@'); /* name@@NETSCHED_0 */
    if (at)
      *at = '\0';
    size_t len = strlen(name);
    if (n + len + 3 >= cap)
      syms = realloc(syms, cap *= 2);
    n += (size_t)sprintf(syms + n, " %s ", name) - 1;
  }
  ck_assert_int_eq(pclose(f), 0);
  decl_set *h = header_decls();
  char missing[4096] = "", key[128];
  for (int i = 0; i < h->n; i++) {
    snprintf(key, sizeof key, " %s ", h->d[i].name);
    if (h->d[i].has_api && !strstr(syms, key) && strlen(missing) + 100 < sizeof missing) {
      strcat(missing, " ");
      strcat(missing, h->d[i].name);
    }
  }
  free(h);
  free(syms);
  ck_assert_msg(missing[0] == '\0', "declared in include/ but not exported by %s:%s", lib,
                missing);
}
END_TEST

static Suite *contract_suite(void) {
  Suite *s = suite_create("header_contract");
  TCase *tc = tcase_create("api_md");
  tcase_add_test(tc, test_header_parser_sanity);
  tcase_add_test(tc, test_header_decls_have_ns_api);
  tcase_add_test(tc, test_header_decls_exported);
  tcase_add_test(tc, test_api_md_functions_declared);
  tcase_add_test(tc, test_api_md_signatures_match);
  suite_add_tcase(s, tc);
  return s;
}

NS_ABI_MAIN(contract_suite)
