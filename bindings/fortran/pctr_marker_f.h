! SPDX-License-Identifier: MIT
!
! pctr_marker_f.h - <pctr_marker.h> for Fortran: region markers that
! compile to nothing unless enabled, for sources the preprocessor reads
! (.F90, or gfortran -cpp):
!
!   #include <pctr_marker_f.h>
!   program solver
!     PCTR_MARKER_USE
!     implicit none
!     PCTR_MARKER_INIT()
!     PCTR_REGION_BEGIN('solve')
!     call solve()
!     PCTR_REGION_END('solve')
!     PCTR_MARKER_FLUSH()
!   end program
!
! Built with -DPCTR_ENABLE (and pkg-config pctr-fortran), they use module
! pctr and call pctr_region_init(), pctr_region_begin(), _end() and
! _flush(); what is measured and where the report goes is then up to
! $PCTR_EVENTS and $PCTR_REPORT (pctr_region(3)).  Without it each is an
! empty line: no module, no call, no library, and the name is not
! evaluated.  Its comments are Fortran comments: the file is for Fortran
! sources only.
#ifndef PCTR_MARKER_F_H
#define PCTR_MARKER_F_H

#ifdef PCTR_ENABLE

#define PCTR_MARKER_USE use pctr, only: pctr_region_init, pctr_region_begin, pctr_region_end, pctr_region_flush
#define PCTR_MARKER_INIT() call pctr_region_init()
#define PCTR_REGION_BEGIN(name) call pctr_region_begin(name)
#define PCTR_REGION_END(name) call pctr_region_end(name)
#define PCTR_MARKER_FLUSH() call pctr_region_flush()

#else

#define PCTR_MARKER_USE
#define PCTR_MARKER_INIT()
#define PCTR_REGION_BEGIN(name)
#define PCTR_REGION_END(name)
#define PCTR_MARKER_FLUSH()

#endif

#endif
