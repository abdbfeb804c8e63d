#include "views/panels/tfdata/tfdatapanel.h"

#include "core/analysis/toolfacts.h"

#include "views/panels/common/panellinks.h"
#include "views/panels/common/rowtable.h"
#include "views/panels/pytorch/frameworkpages.h"
#include "views/panels/tfdata/tfdatagraphmodel.h"

#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QTextBrowser>
#include <QTreeView>
#include <QVBoxLayout>

namespace tracedesk::views {

using namespace core::analysis;

namespace {

QStandardItem *textItem(const QString &text)
{
    auto *item = new QStandardItem(text);
    item->setEditable(false);
    return item;
}

QStandardItem *numberItem(double value, int decimals)
{
    auto *item = new QStandardItem;
    item->setEditable(false);
    item->setData(decimals == 0 ? QVariant(qlonglong(value)) : QVariant(value), Qt::DisplayRole);
    item->setData(QVariant(Qt::AlignRight | Qt::AlignVCenter), Qt::TextAlignmentRole);
    return item;
}

double us(core::TimePs ps) { return double(ps) / 1e6; }

} // namespace

TfDataPanel::TfDataPanel(QWidget *parent) : QWidget(parent)
{
    m_status = new QLabel(tr("No profile"), this);
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);

    m_pipelines = new QStandardItemModel(0, PipelineColumnCount, this);
    m_pipelines->setHorizontalHeaderLabels({tr("Host"), tr("Input pipeline"), tr("Type"),
                                            tr("Calls"), tr("Slow calls"), tr("Min (us)"),
                                            tr("Avg (us)"), tr("Max (us)"), tr("Bottleneck")});
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_pipelines);
    m_table = makeRowTable(m_proxy, this);
    m_table->sortByColumn(MaxUs, Qt::DescendingOrder);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setColumnWidth(Host, 170);

    m_graphTitle = new QLabel(tr("Input pipeline graph"), this);
    m_graph = new TfDataGraphModel(this);
    m_tree = new QTreeView(this);
    m_tree->setModel(m_graph);
    m_tree->setUniformRowHeights(true);
    m_tree->setColumnWidth(TfDataGraphModel::Iterator, 220);
    m_tree->header()->setStretchLastSection(false);

    m_recommendation = new QTextBrowser(this);
    m_recommendation->setOpenExternalLinks(true);

    auto *top = new QWidget(this);
    auto *topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addWidget(m_summary);
    topLayout->addWidget(m_table, 1);
    auto *middle = new QWidget(this);
    auto *middleLayout = new QVBoxLayout(middle);
    middleLayout->setContentsMargins(0, 0, 0, 0);
    middleLayout->addWidget(m_graphTitle);
    middleLayout->addWidget(m_tree, 1);
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(top);
    split->addWidget(middle);
    split->addWidget(m_recommendation);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    split->setStretchFactor(2, 1);

    // PyTorch traces get their own page; the panel's own content is the classic page.
    auto *classic = new QWidget(this);
    m_pytorch = new NotApplicableView(
        tr("tf.data Bottleneck analyses tf.data pipelines; this PyTorch profile has none — "
           "see Overview for the DataLoader share of each step."),
        this);
    m_pages = new FrameworkPages(this, classic, m_pytorch,
                                 [this](const AnalysisCachePtr &c) { m_pytorch->setAnalyses(c); });
    auto *layout = new QVBoxLayout(classic);
    layout->addWidget(m_status);
    layout->addWidget(split, 1);

    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (current.isValid())
                    showPipeline(current.siblingAtColumn(0).data(kPipelineIndexRole).toInt());
            });
    onRowActivated(m_tree, this, [this](const QModelIndex &index) {
        const QString name = index.siblingAtColumn(0)
                                 .data(TfDataGraphModel::kLongNameRole)
                                 .toString();
        if (!name.isEmpty())
            emit opActivated(name);
    });
}

TfDataPanel::~TfDataPanel() = default;

QString TfDataPanel::notApplicableReason(const core::Trace &trace)
{
    if (core::analysis::hasTfDataIterators(trace))
        return {};
    return tr("tf.data Bottleneck analyses tf.data input pipelines; this profile ran no tf.data "
              "iterator — see Input Pipeline for its host input time.");
}

void TfDataPanel::setAnalyses(AnalysisCachePtr cache)
{
    cache = m_pages->route(std::move(cache));
    m_cache = std::move(cache);
    recompute();
}

QString TfDataPanel::statusText() const
{
    return m_status->text();
}

QString TfDataPanel::recommendationText() const
{
    return m_recommendation->toPlainText();
}

void TfDataPanel::recompute()
{
    m_compute.cancel();
    m_result.reset();
    m_pipelines->removeRows(0, m_pipelines->rowCount());
    m_graph->setExecution({});
    m_recommendation->clear();
    m_summary->clear();
    if (!m_cache) {
        m_status->setText(tr("No profile"));
        return;
    }
    m_status->setText(tr("Computing..."));
    AnalysisCachePtr cache = m_cache;
    m_compute.start([cache] { return tfDataSlowestAnalysis(*cache); });
}

void TfDataPanel::showAnalysis(std::shared_ptr<const TfDataAnalysis> result)
{
    m_result = std::move(result);
    fill();
    emit computed();
}

void TfDataPanel::fill()
{
    const TfDataAnalysis &a = *m_result;
    m_summary->setText(QString::fromStdString(a.summary));
    m_status->setText(a.pipelines.empty()
                          ? tr("No tf.data iterator events in this profile")
                          : tr("%1 input pipelines, %2 iterator events")
                                .arg(a.pipelines.size())
                                .arg(a.iteratorEvents));
    for (size_t i = 0; i < a.pipelines.size(); ++i) {
        const TfDataPipeline &p = a.pipelines[i];
        const TfDataExecution &x = p.executions.front();
        const TfDataIteratorStat *b = x.find(x.bottleneckId);
        QList<QStandardItem *> row{
            textItem(QString::fromStdString(p.host)),
            textItem(QString::fromStdString(p.name)),
            textItem(p.device ? QStringLiteral("DEVICE") : QStringLiteral("HOST")),
            numberItem(double(p.calls), 0),
            numberItem(double(p.slowCalls), 0),
            numberItem(us(p.minLatency), 3),
            numberItem(us(p.avgLatency), 3),
            numberItem(us(p.maxLatency), 3),
            textItem(b ? QString::fromUtf8(b->longName.data(), qsizetype(b->longName.size())) : QString())};
        row[0]->setData(int(i), kPipelineIndexRole);
        m_pipelines->appendRow(row);
    }
    m_table->resizeColumnsToContents();
    if (!a.pipelines.empty())
        m_table->selectRow(0);
}

void TfDataPanel::showPipeline(int index)
{
    if (!m_result || index < 0 || index >= int(m_result->pipelines.size()))
        return;
    const TfDataPipeline &p = m_result->pipelines[size_t(index)];
    const TfDataExecution &x = p.executions.front();
    m_graphTitle->setText(tr("Input pipeline graph: %1 %2, slowest of %3 executions (%4 us)")
                              .arg(QString::fromStdString(p.host), QString::fromStdString(p.name))
                              .arg(p.calls)
                              .arg(us(x.duration), 0, 'f', 3));
    m_graph->setExecution(x, m_cache ? m_cache->trace().begin : 0);
    m_tree->expandAll();
    for (int c = 1; c < TfDataGraphModel::ColumnCount; ++c)
        m_tree->resizeColumnToContents(c);
    const TfDataIteratorStat *b = x.find(x.bottleneckId);
    if (!b) {
        m_recommendation->setPlainText(tr("No bottleneck: no iterator on the critical path has "
                                          "positive self time."));
        return;
    }
    const TfDataBottleneckType type = tfDataBottleneckType(b->name());
    m_recommendation->setPlainText(
        tr("Bottleneck: %1 (%2), self time %3 us\n%4")
            .arg(QString::fromUtf8(b->longName.data(), qsizetype(b->longName.size())),
                 QString::fromUtf8(tfDataBottleneckTypeName(type).data(),
                                   qsizetype(tfDataBottleneckTypeName(type).size())))
            .arg(us(b->selfTime), 0, 'f', 3)
            .arg(QString::fromStdString(tfDataSuggestion(type))));
}

} // namespace tracedesk::views
