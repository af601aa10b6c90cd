// The system's zlib (Debian: zlib1g-dev), for gzip-compressing the renderer's files.
#include <zlib.h>
