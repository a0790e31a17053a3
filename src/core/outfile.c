/*
 * src/core/outfile.c - output files written whole or not at all: rows go
 * to a temporary file next to the destination, which is renamed over it
 * only once everything was written and closed without error. A failed or
 * interrupted write leaves an existing file as it was (issue 31: a failed
 * run used to truncate it). A destination that exists and is not a
 * regular file (/dev/stdout, a FIFO) is written directly: it cannot be
 * replaced by a rename.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/internal.h"

static atomic_uint tmp_counter;

int nsi_outfile_open(nsi_outfile *o, const char *path, const char *fn) {
  o->f = NULL, o->path = path, o->tmp = NULL;
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
    return nsi_fail(NS_EINVAL, "%s: path '%.200s' is a directory", fn, path);
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    o->f = fopen(path, "w");
    if (o->f == NULL)
      return nsi_fail(NS_EINVAL, "%s: path '%.200s' cannot be written: %s", fn, path,
                      strerror(errno));
    return NS_OK;
  }
  size_t len = strlen(path) + 48;
  o->tmp = malloc(len);
  if (o->tmp == NULL)
    return nsi_fail(NS_ENOMEM, "%s: out of memory", fn);
  int fd = -1;
  for (int attempt = 0; fd < 0 && attempt < 100; attempt++) {
    snprintf(o->tmp, len, "%s.tmp-%ld-%u", path, (long)getpid(),
             atomic_fetch_add(&tmp_counter, 1u));
    fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL, 0666); /* the umask applies, as with fopen */
    if (fd < 0 && errno != EEXIST)
      break;
  }
  if (fd < 0 || (o->f = fdopen(fd, "w")) == NULL) {
    int err = errno;
    if (fd >= 0) {
      close(fd);
      unlink(o->tmp);
    }
    free(o->tmp);
    o->tmp = NULL;
    return nsi_fail(NS_EINVAL, "%s: path '%.200s' cannot be written: %s", fn, path, strerror(err));
  }
  return NS_OK;
}

int nsi_outfile_commit(nsi_outfile *o, const char *fn) {
  int bad = ferror(o->f) != 0, err = errno;
  if (fclose(o->f) != 0 && !bad)
    bad = 1, err = errno;
  o->f = NULL;
  if (!bad && o->tmp && rename(o->tmp, o->path) != 0)
    bad = 1, err = errno;
  if (o->tmp && bad)
    unlink(o->tmp);
  free(o->tmp);
  o->tmp = NULL;
  if (bad)
    return nsi_fail(NS_EINVAL, "%s: path '%.200s' write failed (left as it was): %s", fn, o->path,
                    strerror(err));
  return NS_OK;
}

void nsi_outfile_abort(nsi_outfile *o) {
  if (o->f)
    fclose(o->f);
  if (o->tmp)
    unlink(o->tmp);
  free(o->tmp);
  o->f = NULL, o->tmp = NULL;
}
