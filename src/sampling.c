/* SPDX-License-Identifier: MIT */
/* sampling.c - to be written. */
#include "internal.h"
