//! UTC timestamps as fixed-precision ISO-8601 strings,
//! `YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ`: text order is time order, and the nine
//! fractional digits keep every nanosecond. Years outside 0000–9999 would
//! break the ordering and are refused in keys.
