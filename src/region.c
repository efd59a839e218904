/* SPDX-License-Identifier: MIT */
/* region.c - to be written. */
#include "internal.h"
