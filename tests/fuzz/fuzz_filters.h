// SPDX-License-Identifier: Apache-2.0
// The filter types the fuzz targets and corpus generator know about.
#pragma once

#include "bloomkit/bloomkit.h"
