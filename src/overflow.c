/* SPDX-License-Identifier: MIT */
/* overflow.c - to be written. */
#include "internal.h"
