// The filter types the fuzz targets and corpus generator know about.
#pragma once

#include "bloomkit/bloomkit.h"
