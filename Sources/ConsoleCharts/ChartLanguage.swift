/// How a chart writes numbers and days in one of the console's languages. Digits are Latin in all three:
/// Algeria writes numbers with them in Arabic too (CLDR's `ar-DZ`), as the page's `Intl.NumberFormat("ar-DZ")`
/// does; grouping follows each locale (`1,234` in English, `1 234` in French with a narrow no-break space,
/// `1.234` in Arabic as written in Algeria).
public enum ChartLanguage: String, Sendable, CaseIterable {
    case en, fr, ar

    /// A whole number with this language's grouping.
    public func integer(_ value: Int64) -> String {
        let separator: String
        switch self {
        case .en: separator = ","
        case .fr: separator = "\u{202F}"
        case .ar: separator = "."
        }
        let digits = String(value.magnitude)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped += separator }
            grouped.append(digit)
        }
        return (value < 0 ? "-" : "") + grouped
    }

    /// A day as the axis shows it: day/month (`25/11`), the way all three languages write it in Algeria.
    public func dayAndMonth(_ isoDay: String) -> String {
        let parts = isoDay.split(separator: "-")
        guard parts.count == 3 else { return isoDay }
        return "\(parts[2])/\(parts[1])"
    }
}
