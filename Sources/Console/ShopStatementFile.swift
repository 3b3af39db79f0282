public import ConsoleCharts
public import Membership
import PeezAPI
import PeezBasics
import ReportPDF

/// A shop's statement as one file in the format asked for: what the API answers and what `peez admin statement`
/// writes.
public enum ShopStatementFile {
    /// The formats, by the name the API and the command line take.
    public enum Format: String, Sendable, CaseIterable {
        case json, csv, hledger, beancount, pdf

        /// The file's media type.
        public var contentType: String {
            switch self {
            case .json: "application/json; charset=utf-8"
            case .csv: "text/csv; charset=utf-8; header=present"
            case .hledger, .beancount: "text/plain; charset=utf-8"
            case .pdf: "application/pdf"
            }
        }

        /// The file name's extension.
        public var fileExtension: String {
            switch self {
            case .hledger: "journal"
            default: rawValue
            }
        }
    }

    /// The statement's bytes in `format`: the PDF's texts in `language`, made at `madeAt`; a journal's reversals
    /// posted against the account of the entry each undoes (`reversedKinds`).
    public static func bytes(
        _ statement: ShopStatement,
        as format: Format,
        language: ChartLanguage,
        texts: ConsoleTexts,
        madeAt: Int64,
        reversedKinds: [Int64: ShopEntry.Kind]
    ) throws -> [UInt8] {
        switch format {
        case .json: return try APIJSON.encode(ShopStatementBody(statement))
        case .csv: return Array(ShopStatementText.csv(statement).utf8)
        case .hledger: return Array(ShopStatementText.journal(statement, as: .hledger, reversedKinds: reversedKinds).utf8)
        case .beancount: return Array(ShopStatementText.journal(statement, as: .beancount, reversedKinds: reversedKinds).utf8)
        case .pdf: return try ReportPDF.bytes(ShopStatementPages.pages(statement, language: language, texts: texts, madeAt: madeAt))
        }
    }

    /// The file's name: the shop's id's start and the period, e.g. `peez-statement-3f2a9c1d-2026-11-01-2026-11-30.pdf`.
    public static func name(_ statement: ShopStatement, as format: Format) -> String {
        "peez-statement-\(statement.vendor.id.lowercasedText.prefix(8))-\(AlgiersCalendar.dayText(statement.fromDay))-"
            + "\(AlgiersCalendar.dayText(statement.toDay)).\(format.fileExtension)"
    }
}
