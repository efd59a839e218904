/* SPDX-License-Identifier: MIT */
/* stats.c - to be written. */
#include "internal.h"
