#include "views/common/namecolumn.h"

#include <QEvent>
#include <QHeaderView>
#include <QPointer>
#include <QTableView>

#include <algorithm>

namespace tracedesk::views {

namespace {

class NameColumnFitter : public QObject
{
public:
    NameColumnFitter(QTableView *table, int column, int minimumWidth)
        : QObject(table)
        , m_table(table)
        , m_column(column)
        , m_minimum(minimumWidth)
    {
        table->viewport()->installEventFilter(this);
        QHeaderView *header = table->horizontalHeader();
        header->setStretchLastSection(false);
        header->setSectionResizeMode(column, QHeaderView::Interactive);
        // Another column resized by the user, or columns shown or hidden: fit again.
        connect(header, &QHeaderView::sectionResized, this, [this](int section) {
            if (section != m_column)
                fit();
        });
        connect(header, &QHeaderView::sectionCountChanged, this, [this] { fit(); });
        table->setTextElideMode(Qt::ElideMiddle);
        fit();
    }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Resize)
            fit();
        return QObject::eventFilter(watched, event);
    }

private:
    void fit()
    {
        if (!m_table || m_fitting)
            return;
        QHeaderView *header = m_table->horizontalHeader();
        if (m_column >= header->count())
            return;
        int others = 0;
        for (int c = 0; c < header->count(); ++c) {
            if (c != m_column && !header->isSectionHidden(c))
                others += header->sectionSize(c);
        }
        const int width = std::max(m_minimum, m_table->viewport()->width() - others);
        m_fitting = true;
        header->resizeSection(m_column, width);
        m_fitting = false;
    }

    QPointer<QTableView> m_table;
    int m_column;
    int m_minimum;
    bool m_fitting = false;
};

} // namespace

void giveNameColumnTheRoom(QTableView *table, int nameColumn, int minimumWidth)
{
    new NameColumnFitter(table, nameColumn, minimumWidth);
}

} // namespace tracedesk::views
