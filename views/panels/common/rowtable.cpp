#include "views/panels/common/rowtable.h"

#include <QHeaderView>
#include <QSortFilterProxyModel>
#include <QTableView>

namespace tracedesk::views {

QSortFilterProxyModel *makeTableProxy(QAbstractItemModel *source, int sortRole, int filterColumn,
                                      QObject *parent)
{
    auto *proxy = new QSortFilterProxyModel(parent);
    proxy->setSourceModel(source);
    proxy->setSortRole(sortRole);
    proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    proxy->setFilterKeyColumn(filterColumn);
    return proxy;
}

QTableView *makeRowTable(QAbstractItemModel *model, QWidget *parent)
{
    auto *table = new QTableView(parent);
    table->setModel(model);
    table->setSortingEnabled(true);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->verticalHeader()->hide();
    table->setWordWrap(false);
    return table;
}

} // namespace tracedesk::views
