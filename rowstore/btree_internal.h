/*
** btree_internal.h -- the on-page format of B+tree pages, shared by btree.c and the tests that
** build or damage pages on purpose.
**
** This is a description of bytes, not an interface: nothing outside rowstore/btree.c and its
** tests may depend on it. All multi-byte integers are little-endian. "U" below is
** pager_usable_size(), the page size minus the pager's checksum trailer.
**
** Tree page (leaf or interior), header of BT_HDR_SIZE bytes:
**   [0]      page type: BT_PAGE_LEAF or BT_PAGE_INTERIOR
**   [1]      level: 0 for a leaf, child level + 1 for an interior page
**   [2..3]   cell count n
**   [4..5]   start of the cell content area (U when the page is empty)
**   [6..7]   fragmented bytes: freed space inside the cell content area
**   [8..11]  interior: the rightmost child's page number; leaf: 0
**   [12..]   n u16 cell offsets, in key order; cells are packed from the end of the page down.
** Leaf cell:     varint klen | varint (vlen << 1 | overflowed) | key |
**                value bytes (local) or u32 first overflow page (overflowed)
** Interior cell: u32 child | varint klen | key          (child holds keys < key)
** Overflow page: [0] BT_PAGE_OVERFLOW, [1..3] 0, [4..7] next page (0 ends the chain), data from
**                [8] to U: a value of vlen bytes takes ceil(vlen / (U - 8)) pages.
** Varints are LEB128 (7 bits per byte, low group first).
*/
#ifndef STRATA_BTREE_INTERNAL_H
#define STRATA_BTREE_INTERNAL_H

#define BT_PAGE_LEAF 0x0D
#define BT_PAGE_INTERIOR 0x05
#define BT_PAGE_OVERFLOW 0x0F

#define BT_HDR_SIZE 12
#define BT_OFF_TYPE 0
#define BT_OFF_LEVEL 1
#define BT_OFF_NCELLS 2
#define BT_OFF_CSTART 4
#define BT_OFF_FRAG 6
#define BT_OFF_RIGHT 8

#define BT_OVFL_HDR 8
#define BT_OVFL_OFF_NEXT 4

#define BT_MAX_DEPTH 32 /* levels, leaves included */

#include "pager.h"

#endif
