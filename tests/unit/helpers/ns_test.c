#include "ns_test.h"

#include <stdlib.h>
#include <unistd.h>

const char *ns_test_data_path(const char *relative) {
  static char path[4096];
  const char *dir = getenv("NS_DATA_DIR");
  if (dir == NULL || *dir == '\0')
    dir = "../shared/data";
  snprintf(path, sizeof path, "%s/%s", dir, relative);
  if (access(path, R_OK) != 0) {
    printf("[  SKIP    ] %s not found (set NS_DATA_DIR to ../shared/data)\n", path);
    return NULL;
  }
  return path;
}
