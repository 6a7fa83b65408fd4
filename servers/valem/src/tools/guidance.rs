//! `get_domain_guidance`: vetted "hard shape" instructions for recurring modelling problems,
//! read before authoring a spec.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tooltable::{Error, tool};

/// The fixed menu of topics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Topic {
    AmortizationSchedule,
    GroupBy,
    DateMath,
    Classification,
    CurrencyConversion,
    StatusField,
    RankPercentile,
    RegulatedCharge,
    Percentage,
    UnitConversion,
    CompoundGrowth,
    WeightedAverage,
    Eligibility,
    Proration,
}

impl Topic {
    fn title(self) -> &'static str {
        match self {
            Topic::AmortizationSchedule => "Amortization schedules",
            Topic::GroupBy => "Grouping and subtotals",
            Topic::DateMath => "Date arithmetic",
            Topic::Classification => "Classification into bands",
            Topic::CurrencyConversion => "Currency conversion",
            Topic::StatusField => "Status fields",
            Topic::RankPercentile => "Ranks and percentiles",
            Topic::RegulatedCharge => "Progressive and regulated charges",
            Topic::Percentage => "Percentages",
            Topic::UnitConversion => "Unit conversion",
            Topic::CompoundGrowth => "Compound growth",
            Topic::WeightedAverage => "Weighted averages",
            Topic::Eligibility => "Eligibility rules",
            Topic::Proration => "Proration",
        }
    }

    fn guidance(self) -> &'static str {
        match self {
            Topic::AmortizationSchedule => {
                "Derive the monthly rate first ($.monthlyRate = annualRatePercent / 1200) and the compound factor once ($power(1 + monthlyRate, termMonths)); the payment is $round(principal * monthlyRate * factor / (factor - 1), 2). Build the schedule as ONE derivation of an array: $map([1..termMonths], function($n) {{ \"month\": $n, ... }}), computing each row's balance in closed form (principal * (factor - $power(1 + rate, $n)) / (factor - 1)) rather than from the previous row, so no row depends on another. Mark the schedule readOnly. Guard a zero rate with a separate branch (principal / termMonths) and reject or flag it with a constraint."
            }
            Topic::GroupBy => {
                "Group with JSONata's object constructor on a path: items{category: $sum(amount)} gives {\"food\": 12, ...}. For a list of groups use $distinct(items.category) then $map over it with a filter items[category = $c]. Keep the grouped result in one derivation; derive per-group totals from it, not from the raw items again. Guard empty input: $count(items) = 0 ? {} : ..."
            }
            Topic::DateMath => {
                "Store dates as ISO-8601 strings (\"2026-09-14\"). Convert with $toMillis(date) and back with $fromMillis(ms, '[Y0001]-[M01]-[D01]'). A day is 86400000 ms: days between = ($toMillis(end) - $toMillis(start)) / 86400000. Never call $now() in a derivation whose value must be reproducible; take \"today\" as a field the caller writes. Compare ISO dates as strings only when both have the same format."
            }
            Topic::Classification => {
                "Classify with an ordered chain of conditions from the most to the least specific, ending in a default: score >= 80 ? \"Excellent\" : score >= 60 ? \"Good\" : \"Low\". Put the thresholds in constants ($const.bands) when they are policy. Test every boundary value in the spec's tests (exactly 80, 79.99). A missing input must land in an explicit band, not fall through to the default silently: check != null first."
            }
            Topic::CurrencyConversion => {
                "Keep amounts in their source currency and derive converted amounts: $round(amount * $const.rates[currency], 2). Rates belong in constants or a field the caller writes, never hard-coded in several expressions. Round only the final displayed amount; sum unrounded values and round the sum, or document which one you round."
            }
            Topic::StatusField => {
                "A status is a derived string from an explicit decision chain (eligible = true ? \"quoted\" : \"declined\"), with an enum in the schema listing every value. A status a person or an executor sets (approval, an effect's progress) is a written field, never derived; point an effect's statusPath at it so the effect is not emitted twice while pending."
            }
            Topic::RankPercentile => {
                "Rank with a sorted copy: $sort(items, function($a, $b) { $a.score < $b.score }) and find positions with $map and a filter. Percentile of a value v in a list: $count(list[$ < v]) / $count(list) * 100. Derive the sorted list once; derive ranks from it. Ties: decide (same rank or stable order) and test it."
            }
            Topic::RegulatedCharge => {
                "A progressive charge over bands: keep the bands in constants as [{\"from\": 0, \"to\": 10000, \"rate\": 0.1}, ...] and sum each band's share: $sum($map($const.bands, function($b) { ($min([base, $b.to]) - $b.from) > 0 ? ($min([base, $b.to]) - $b.from) * $b.rate : 0 })). An excess-over-threshold rule is a library function ($excessOver(value, threshold) = max(value - threshold, 0)). Round money with $round(x, 2) at each legally rounded step, exactly where the regulation rounds."
            }
            Topic::Percentage => {
                "Store percentages as the number people type (6 for 6%) and divide by 100 in the expression that uses it; name the field ...Percent. Guard the denominator: total = 0 ? 0 : part / total * 100. Round for display with $round(x, 1); keep unrounded values for further arithmetic."
            }
            Topic::UnitConversion => {
                "Keep one canonical unit per quantity in the document (kilograms, metres, kWh) and derive display units. Put factors in constants with the unit in the name ($const.kgPerLb). Convert before comparing or adding; never add values of different units."
            }
            Topic::CompoundGrowth => {
                "Future value: principal * $power(1 + ratePercent / 100, years). For a year-by-year table derive one array with $map([1..years], function($y) { ... $power(1 + r, $y) ... }) in closed form; use $reduce only when each year really depends on the previous one (contributions, withdrawals), carrying an accumulator object."
            }
            Topic::WeightedAverage => {
                "A weighted average is $sum(items.(value * weight)) / $sum(items.weight); guard a zero total weight (return 0 or null and flag it). Filter out items with a missing value or weight first: items[value != null and weight != null]."
            }
            Topic::Eligibility => {
                "Derive a boolean per rule (ageOk, incomeOk) and the overall eligible = ageOk and incomeOk, so explain shows which rule failed. A missing input is not eligible: age != null and age >= 18. Derive the reason as a string for people. Use meta derivations (relevant, required, readOnly) to show or lock fields that only matter when a rule applies."
            }
            Topic::Proration => {
                "Prorate by days: amount * usedDays / periodDays, with both day counts derived from dates ($toMillis differences / 86400000). Round the prorated amount once, at the end, with $round(x, 2). Decide whether the end date counts (inclusive adds 1) and test a full period and a single day."
            }
        }
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct GuidanceArgs {
    /// The topics that match the model being authored.
    pub topics: Vec<Topic>,
}

#[derive(Serialize, JsonSchema)]
pub struct Guidance {
    /// The ids asked for, in the order given.
    pub topics: Vec<Topic>,
    /// The guidance of every topic, in that order, each under its title.
    pub guidance: String,
}

/// Vetted instructions for recurring modelling shapes (amortization schedules, progressive
/// charges, classification, date math, percentages, ...). Read the model's description, pick
/// the matching topics, and follow the guidance before authoring the spec.
#[tool(title = "Get domain guidance", read_only, idempotent, rest = "POST /authoring/guidance", open_world = false)]
pub async fn get_domain_guidance(args: GuidanceArgs) -> Result<Guidance, Error> {
    let guidance: Vec<String> = args.topics.iter().map(|t| format!("## {}\n\n{}", t.title(), t.guidance())).collect();
    Ok(Guidance { topics: args.topics, guidance: guidance.join("\n\n") })
}
