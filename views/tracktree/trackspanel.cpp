#include "views/tracktree/trackspanel.h"

#include "views/tracktree/trackfilterproxy.h"
#include "views/tracktree/tracktreemodel.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLineEdit>
#include <QTreeView>
#include <QVBoxLayout>

namespace tracedesk::views {

TracksPanel::TracksPanel(TrackTreeModel *model, QWidget *parent)
    : QWidget(parent), m_model(model)
{
    m_proxy = new TrackFilterProxy(this);
    m_proxy->setSourceModel(model);
    m_filter = new QLineEdit(this);
    m_filter->setObjectName(QStringLiteral("TrackFilter"));
    m_filter->setPlaceholderText(tr("Filter tracks by name"));
    m_filter->setClearButtonEnabled(true);
    m_showEmpty = new QCheckBox(tr("Show empty planes"), this);
    m_showEmpty->setToolTip(tr("List the planes that hold no events (hidden by default)"));
    m_view = new QTreeView(this);
    m_view->setObjectName(QStringLiteral("TrackTree"));
    m_view->setModel(m_proxy);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->header()->setStretchLastSection(false);
    m_view->header()->setSectionResizeMode(TrackTreeModel::NameColumn, QHeaderView::Stretch);
    m_view->header()->setSectionResizeMode(TrackTreeModel::EventsColumn,
                                           QHeaderView::ResizeToContents);
    m_view->header()->setSectionResizeMode(TrackTreeModel::SpanColumn,
                                           QHeaderView::ResizeToContents);

    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(m_filter, 1);
    bar->addWidget(m_showEmpty);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    layout->addLayout(bar);
    layout->addWidget(m_view, 1);

    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString &text) {
        m_proxy->setNameFilter(text);
        if (text.trimmed().isEmpty())
            expandDefault();
        else
            m_view->expandAll();   // the matches are usually tracks, two levels down
    });
    connect(m_showEmpty, &QCheckBox::toggled, this, [this](bool on) {
        m_proxy->setShowEmpty(on);
        expandDefault();
    });
    connect(m_view, &QTreeView::clicked, this, &TracksPanel::activate);
    connect(m_view, &QTreeView::activated, this, &TracksPanel::activate);
    connect(model, &QAbstractItemModel::modelReset, this, &TracksPanel::expandDefault);
}

void TracksPanel::expandDefault()
{
    m_view->collapseAll();
    m_view->expandToDepth(0);
}

void TracksPanel::activate(const QModelIndex &proxyIndex)
{
    const QModelIndex source = m_proxy->mapToSource(proxyIndex);
    if (!source.isValid())
        return;
    const int index = source.data(TrackTreeModel::IndexRole).toInt();
    if (index < 0)
        return;
    switch (TrackTreeModel::NodeType(source.data(TrackTreeModel::NodeTypeRole).toInt())) {
    case TrackTreeModel::NodeType::Track: emit trackActivated(uint32_t(index)); break;
    case TrackTreeModel::NodeType::Plane: emit planeActivated(uint32_t(index)); break;
    case TrackTreeModel::NodeType::Host: break;
    }
}

} // namespace tracedesk::views
