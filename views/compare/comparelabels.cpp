#include "views/compare/comparelabels.h"

#include <QDir>
#include <QStringList>

#include <algorithm>

namespace tracedesk::views {

namespace {

// Folders from the file's own upwards, without the file name.
QStringList foldersUpwards(const std::string &source)
{
    QStringList parts = QDir::cleanPath(QDir::fromNativeSeparators(QString::fromStdString(source)))
                            .split(QLatin1Char('/'), Qt::SkipEmptyParts);
    if (!parts.isEmpty())
        parts.removeLast();
    std::reverse(parts.begin(), parts.end());
    return parts;
}

} // namespace

std::pair<QString, QString> distinctComparisonLabels(const QString &nameA,
                                                     const std::string &sourceA,
                                                     const QString &nameB,
                                                     const std::string &sourceB)
{
    if (nameA != nameB)
        return {nameA, nameB};
    const QStringList a = foldersUpwards(sourceA);
    const QStringList b = foldersUpwards(sourceB);
    for (qsizetype i = 0; i < std::min(a.size(), b.size()); ++i) {
        if (a[i] != b[i])
            return {a[i] + QLatin1Char('/') + nameA, b[i] + QLatin1Char('/') + nameB};
    }
    // Same folders (or no paths): the same file, or one nested deeper than the other.
    if (a.size() != b.size()) {
        const QString folderA = a.isEmpty() ? QString() : a.back() + QLatin1Char('/');
        const QString folderB = b.isEmpty() ? QString() : b.back() + QLatin1Char('/');
        if (folderA != folderB)
            return {folderA + nameA, folderB + nameB};
    }
    return {nameA + QStringLiteral(" (A)"), nameB + QStringLiteral(" (B)")};
}

} // namespace tracedesk::views
