#include "views/panels/pytorch/headerwidths.h"

#include <QHeaderView>
#include <QStyle>
#include <QTableView>

#include <algorithm>

namespace tracedesk::views {

void fitColumnsToHeaders(QTableView *table, int minWidth)
{
    const QAbstractItemModel *model = table->model();
    if (!model)
        return;
    QFont font = table->horizontalHeader()->font();
    font.setBold(true);   // some styles draw the sorted section bold
    const QFontMetrics metrics(font);
    // Room for the margins and the sort indicator the style draws beside the text.
    const int extra = 2 * table->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, table) + 24;
    for (int c = 0; c < model->columnCount(); ++c) {
        const QString text = model->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString();
        table->setColumnWidth(c, std::max(minWidth, metrics.horizontalAdvance(text) + extra));
    }
}

} // namespace tracedesk::views
