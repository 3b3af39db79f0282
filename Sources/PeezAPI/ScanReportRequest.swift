import Membership

/// The body of a scan report (``ScanReport``), every field of every entry checked at once: first each field's
/// kind (as the API document gives it), then the values by ``ScanLogEntry/problems``, the rules the counter
/// logs by.
public enum ScanReportRequest {
    /// The report's own field besides its entries.
    enum Report: FieldRules {
        enum CodingKeys: String, CodingKey, CaseIterable { case counter_id }
        static let fields: [CodingKeys: (kind: FieldKind, required: Bool)] = [.counter_id: (.uuid, true)]
    }

    /// An entry's fields and their kinds, as the API document gives them.
    enum Entry: FieldRules {
        enum CodingKeys: String, CodingKey, CaseIterable { case seq, at, verdict, member, token_id, offline, trust_age, clock_wrong, presented_at }
        static let fields: [CodingKeys: (kind: FieldKind, required: Bool)] = [
            .seq: (.integer, true), .at: (.integer, true), .verdict: (.oneOf(CounterScan.verdicts), true), .member: (.text, false),
            .token_id: (.text, false), .offline: (.boolean, true), .trust_age: (.integer, true), .clock_wrong: (.boolean, false),
            .presented_at: (.integer, false),
        ]
    }

    /// The report in `bytes`: ``MalformedRequestBody`` when it is not a JSON object, a domain `invalidFields`
    /// error naming every field of every entry that is wrong.
    public static func report(from bytes: [UInt8]) throws -> ScanReport {
        let object = try RequestDecoding.object(in: bytes)
        var problems: [String: String] = [:]
        let counterID = CheckedFields<Report.CodingKeys>(object).uuid(.counter_id)
        if counterID == nil { problems["counter_id"] = "must be the counter's UUID" }
        var entries: [JSONValue] = []
        if case .array(let list)? = object["entries"], (1...CounterScan.maxPerReport).contains(list.count) {
            entries = list
        } else {
            problems["entries"] = "must be a list of 1 to \(CounterScan.maxPerReport) scan-log entries"
            if case .array(let list)? = object["entries"] { entries = Array(list.prefix(CounterScan.maxPerReport)) }
        }
        var decoded: [ScanLogEntry] = []
        for (index, value) in entries.enumerated() {
            let name = "entries[\(index)]"
            guard let fields = value.object else {
                problems[name] = "must be an object"
                continue
            }
            let (entry, entryProblems) = Self.entry(fields)
            if let entry { decoded.append(entry) }
            for (field, problem) in entryProblems { problems["\(name).\(field)"] = problem }
        }
        guard problems.isEmpty, let counterID else { throw RequestDecoding.invalidFields(problems) }
        return ScanReport(counterID: counterID, entries: decoded)
    }

    /// One entry: the kinds first, then the value rules on every field whose kind is right, so one answer names
    /// all of its problems; the entry when it has none.
    private static func entry(_ fields: [String: JSONValue]) -> (ScanLogEntry?, [String: String]) {
        var problems = Entry.problems(in: fields)
        let checked = CheckedFields<Entry.CodingKeys>(fields)
        let wellTyped = { (field: Entry.CodingKeys) in problems[field.stringValue] == nil }
        let number = { (field: Entry.CodingKeys, fallback: Int64) in wellTyped(field) ? checked.integer(field) ?? fallback : fallback }
        let text = { (field: Entry.CodingKeys) in wellTyped(field) ? checked.text(field) : nil }
        let flag = { (field: Entry.CodingKeys) in wellTyped(field) ? checked.boolean(field) ?? false : false }
        let entry = ScanLogEntry(
            seq: Int(clamping: number(.seq, 1)),
            at: number(.at, ScanLogEntry.timeRange.lowerBound),
            verdict: text(.verdict) ?? CounterScan.verdicts[0],
            member: text(.member),
            tokenID: text(.token_id),
            offline: flag(.offline),
            trustAge: number(.trust_age, 0),
            clockWrong: flag(.clock_wrong),
            presentedAt: wellTyped(.presented_at) ? checked.integer(.presented_at) : nil
        )
        problems.merge(entry.problems) { kind, _ in kind }
        return (problems.isEmpty ? entry : nil, problems)
    }
}
