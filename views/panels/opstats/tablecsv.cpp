#include "views/panels/opstats/tablecsv.h"

#include <QAbstractItemModel>
#include <QFile>
#include <QFileDialog>
#include <QMessageBox>

namespace tracedesk::views {

namespace {

QString field(QString text)
{
    if (text.contains(QLatin1Char(',')) || text.contains(QLatin1Char('"'))
        || text.contains(QLatin1Char('\n'))) {
        text.replace(QLatin1String("\""), QLatin1String("\"\""));
        return QLatin1Char('"') + text + QLatin1Char('"');
    }
    return text;
}

} // namespace

QString tableToCsv(const QAbstractItemModel &model)
{
    QString out;
    const int columns = model.columnCount();
    for (int c = 0; c < columns; ++c) {
        if (c)
            out += QLatin1Char(',');
        out += field(model.headerData(c, Qt::Horizontal).toString());
    }
    out += QLatin1Char('\n');
    for (int r = 0; r < model.rowCount(); ++r) {
        for (int c = 0; c < columns; ++c) {
            if (c)
                out += QLatin1Char(',');
            out += field(model.data(model.index(r, c)).toString());
        }
        out += QLatin1Char('\n');
    }
    return out;
}

bool exportTableCsv(QWidget *parent, const QAbstractItemModel &model, const QString &suggested)
{
    const QString path = QFileDialog::getSaveFileName(parent, QObject::tr("Export CSV"), suggested,
                                                      QObject::tr("CSV files (*.csv)"));
    if (path.isEmpty())
        return false;
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text)
        || file.write(tableToCsv(model).toUtf8()) < 0) {
        QMessageBox::warning(parent, QObject::tr("Export CSV"),
                             QObject::tr("Could not write %1: %2").arg(path, file.errorString()));
        return false;
    }
    return true;
}

} // namespace tracedesk::views
