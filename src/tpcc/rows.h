// The initial rows of the nine TPC-C tables (specification revision 5.11,
// clause 4.3.3.1), as the text lines of COPY ... FROM STDIN (tab-separated,
// \N for null, one line per row), in the column order of schema.h.
//
// Determinism: each unit of loading work (the items; one warehouse's row,
// its stock, its districts; one district's customers, history, orders) draws
// from a Prng of its own, UnitRng(seed, table, warehouse, district), so the
// rows are the same for a seed however the loader splits the work over its
// connections.  `now` is the load's one timestamp (C_SINCE, H_DATE,
// O_ENTRY_D, OL_DELIVERY_D), so that two loads with the same seed and `now`
// are equal byte for byte.
//
// What the load leaves (and `pgrig tpcc check` expects right after it): per
// district, orders 1..3000 of which 1..2100 are delivered (a carrier, order
// lines dated and of amount 0.00) and 2101..3000 are new orders; every
// customer has one order (a random permutation), one history row of 10.00,
// a balance of -10.00 and year-to-date payments of 10.00; W_YTD is 300,000.00
// and each D_YTD 30,000.00, with D_NEXT_O_ID 3001.
#ifndef PGRIG_TPCC_ROWS_H_
#define PGRIG_TPCC_ROWS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "tpcc/random.h"

namespace pgrig::tpcc {

inline constexpr int kDistrictsPerWarehouse = 10;
inline constexpr int kOrdersPerDistrict = 3000;
inline constexpr int kFirstNewOrder = 2101;  // orders from here on are undelivered

enum class LoadTable { kItem, kWarehouse, kStock, kDistrict, kCustomer, kHistory, kOrders };

// The generator of one unit of loading work; district 0 for the units that
// are not per district.
Prng UnitRng(uint64_t seed, LoadTable table, int warehouse, int district);

// "-10.00" from -1000: amounts are kept in cents.
void AppendMoney(int64_t cents, std::string* out);

// Items first_id..last_id (of 1..100000).
void AppendItemRows(Prng& rng, int first_id, int last_id, std::string* out);
void AppendWarehouseRow(Prng& rng, int w, std::string* out);
// Stock of warehouse w for items first_id..last_id.
void AppendStockRows(Prng& rng, int w, int first_id, int last_id, std::string* out);
// The ten districts of warehouse w.
void AppendDistrictRows(Prng& rng, int w, std::string* out);
// The 3,000 customers of district d of warehouse w: C_LAST from the
// customer number for the first 1,000 (customer c gets number c - 1), from
// NURand(255, 0, 999) with the load's constant for the others; one in ten
// (at random) has bad credit.
void AppendCustomerRows(Prng& rng, const NURandConstants& load, int w, int d, std::string_view now,
                        std::string* out);
void AppendHistoryRows(Prng& rng, int w, int d, std::string_view now, std::string* out);

// The district's orders, their order lines and its new orders, drawn
// together (an order's line count decides its lines).  Returns the number
// of order lines.
int64_t AppendOrderRows(Prng& rng, int w, int d, std::string_view now, std::string* orders,
                        std::string* order_lines, std::string* new_orders);

}  // namespace pgrig::tpcc

#endif  // PGRIG_TPCC_ROWS_H_
