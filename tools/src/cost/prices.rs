//! The price table: data, with its region, date and source, overridable.

use serde::{Deserialize, Serialize};

/// What DynamoDB charges in one region, for both table classes: the data
/// the cost report multiplies by. [`Prices::us_east_1`] holds the
/// published prices of US East (N. Virginia); any other table is a JSON
/// document of the same shape (`serde_json::from_str`), or this one with
/// fields changed. The region, date and source travel with the numbers into
/// every report.
///
/// ```
/// use singletable::cost::Prices;
///
/// let mut prices = Prices::us_east_1();
/// assert_eq!(prices.region, "us-east-1");
/// assert_eq!(prices.standard.write_per_million, 0.625);
/// // Overridden: a negotiated rate, stated as such.
/// prices.standard.write_per_million = 0.5;
/// prices.source = "our AWS contract, 2026".into();
/// let json = serde_json::to_string(&prices)?;
/// assert_eq!(serde_json::from_str::<Prices>(&json)?, prices);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prices {
    /// The AWS region the prices are for (`us-east-1`).
    pub region: String,
    /// When the prices were read (ISO date).
    pub date: String,
    /// Where they were read.
    pub source: String,
    /// The currency (`USD`).
    pub currency: String,
    /// The Standard table class.
    pub standard: ClassPrices,
    /// The Standard-Infrequent Access table class.
    pub standard_ia: ClassPrices,
}

/// The prices of one table class: on-demand request units, provisioned
/// capacity per hour, storage per GB-month.
///
/// ```
/// use singletable::cost::Prices;
///
/// let p = Prices::us_east_1();
/// // Standard-IA stores for less and serves for more.
/// assert!(p.standard_ia.storage_gb_month < p.standard.storage_gb_month);
/// assert!(p.standard_ia.read_per_million > p.standard.read_per_million);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ClassPrices {
    /// On-demand: a million read request units.
    pub read_per_million: f64,
    /// On-demand: a million write request units.
    pub write_per_million: f64,
    /// Provisioned: one read capacity unit for an hour.
    pub rcu_hour: f64,
    /// Provisioned: one write capacity unit for an hour.
    pub wcu_hour: f64,
    /// Storage: one GB (2^30 bytes) for a month.
    pub storage_gb_month: f64,
}

impl Prices {
    /// DynamoDB's published prices for US East (N. Virginia), as listed on
    /// aws.amazon.com/dynamodb/pricing after the on-demand price reduction
    /// of 1 November 2024: on-demand $0.125 per million read and $0.625 per
    /// million write request units (Standard-IA $0.155 and $0.78),
    /// provisioned $0.00013 per RCU-hour and $0.00065 per WCU-hour
    /// (Standard-IA $0.00016 and $0.00081), storage $0.25 per GB-month
    /// (Standard-IA $0.10). The free tier, reserved capacity, backups,
    /// streams and data transfer are not in it. Check the page before
    /// relying on a figure; replace what differs.
    ///
    /// ```
    /// use singletable::cost::Prices;
    ///
    /// let p = Prices::us_east_1();
    /// assert_eq!((p.standard.rcu_hour, p.standard.wcu_hour), (0.00013, 0.00065));
    /// assert!(p.source.contains("aws.amazon.com/dynamodb/pricing"));
    /// ```
    pub fn us_east_1() -> Prices {
        Prices {
            region: "us-east-1".into(),
            date: "2024-11-01".into(),
            source: "https://aws.amazon.com/dynamodb/pricing/ (on-demand and provisioned pages, after the on-demand price reduction of 2024-11-01)".into(),
            currency: "USD".into(),
            standard: ClassPrices {
                read_per_million: 0.125,
                write_per_million: 0.625,
                rcu_hour: 0.00013,
                wcu_hour: 0.00065,
                storage_gb_month: 0.25,
            },
            standard_ia: ClassPrices {
                read_per_million: 0.155,
                write_per_million: 0.78,
                rcu_hour: 0.00016,
                wcu_hour: 0.00081,
                storage_gb_month: 0.10,
            },
        }
    }
}
