// SPDX-License-Identifier: MIT
// header_iso.cpp - header_iso.c built as C++ (-std=c++11, -pedantic-errors):
// <pctr.h> and <pctr_marker.h> declare C functions a C++ program links to.
#include "header_iso.c"
