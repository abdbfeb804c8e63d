#pragma once

// rocprofv3 fixture files read independently of the readers under test: a CSV file as rows of
// named cells (quoted fields with commas and doubled quotes), the JSON results document through
// QJsonDocument (gunzipped with zlib), so tests count what the files hold.

#include "kinetofixtures.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QString>
#include <QStringList>

namespace testsupport {

inline QString rocprofFixtureDir()
{
    return QString(TRACEDESK_SHARED_FIXTURES) + "/rocprofv3/";
}

using CsvRecord = QMap<QString, QString>;

// Every record of a CSV text, by header name.
inline QList<CsvRecord> parseCsvText(const QByteArray &text)
{
    QList<QStringList> rows;
    QStringList row;
    QString cell;
    bool quoted = false, any = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                cell += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                cell += QChar::fromLatin1(c);
            }
            continue;
        }
        if (c == '"') {
            quoted = true;
            any = true;
        } else if (c == ',') {
            row << cell;
            cell.clear();
            any = true;
        } else if (c == '\n') {
            if (any || !cell.isEmpty()) {
                row << cell;
                rows << row;
            }
            row.clear();
            cell.clear();
            any = false;
        } else if (c != '\r') {
            cell += QChar::fromLatin1(c);
            any = true;
        }
    }
    if (any || !cell.isEmpty()) {
        row << cell;
        rows << row;
    }
    QList<CsvRecord> out;
    if (rows.isEmpty())
        return out;
    const QStringList header = rows.takeFirst();
    for (const QStringList &r : rows) {
        CsvRecord rec;
        for (qsizetype c = 0; c < header.size() && c < r.size(); ++c)
            rec[header[c]] = r[c];
        out << rec;
    }
    return out;
}

inline QList<CsvRecord> readCsvFile(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return parseCsvText(f.readAll());
}

// "Agent 4" or "4".
inline qint64 agentNumber(const QString &field)
{
    return field.section(' ', -1).toLongLong();
}

inline QJsonObject readJsonObject(const QString &path)
{
    return QJsonDocument::fromJson(readMaybeGzip(path)).object();
}

} // namespace testsupport
