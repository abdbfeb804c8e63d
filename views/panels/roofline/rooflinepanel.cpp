#include "views/panels/roofline/rooflinepanel.h"

#include "views/common/namecolumn.h"
#include "views/panels/common/panellinks.h"
#include "views/panels/common/rowtable.h"
#include "views/panels/common/xlatoolchoices.h"
#include "views/panels/opstats/tablecsv.h"
#include "views/panels/roofline/rooflinechart.h"
#include "views/panels/roofline/rooflinepointsmodel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <set>

namespace tracedesk::views {

using namespace core::analysis;

RooflinePanel::RooflinePanel(QWidget *parent) : QWidget(parent)
{
    m_category = new QComboBox(this);
    m_category->setToolTip(tr("Only ops of this HLO category (the whole profile and steps "
                              "stay)"));
    m_category->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_boundBy = new QComboBox(this);
    m_boundBy->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_boundBy->setToolTip(tr("Only points bound by this resource"));
    addBoundByChoices(m_boundBy);
    m_export = new QPushButton(tr("Export CSV..."), this);
    m_export->setEnabled(false);
    m_status = new QLabel(tr("No profile"), this);
    m_status->setWordWrap(true);

    m_chart = new RooflineChart(this);
    m_model = new RooflinePointsModel(this);
    m_proxy = makeTableProxy(m_model, RooflinePointsModel::kSortRole, -1, this);
    m_table = makeRowTable(m_proxy, this);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->horizontalHeader()->setDefaultSectionSize(90);
    m_table->setColumnWidth(RooflinePointsModel::Kind, 100);
    m_table->setColumnWidth(RooflinePointsModel::Category, 120);
    giveNameColumnTheRoom(m_table, RooflinePointsModel::Name, 240);

    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_chart);
    split->addWidget(m_table);
    // The chart is what the panel is for: it gets most of the width.
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({900, 600});

    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Show:"), this));
    bar->addWidget(m_category);
    bar->addWidget(m_boundBy);
    bar->addStretch(1);
    bar->addWidget(m_export);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_status);
    m_empty = new QLabel(this);
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    m_stack = new QStackedWidget(this);
    m_stack->addWidget(split);
    m_stack->addWidget(m_empty);
    layout->addWidget(m_stack, 1);

    connect(m_category, &QComboBox::currentIndexChanged, this, &RooflinePanel::showPoints);
    connect(m_boundBy, &QComboBox::currentIndexChanged, this, &RooflinePanel::showPoints);
    connect(m_export, &QPushButton::clicked, this,
            [this] { exportTableCsv(this, *m_proxy, QStringLiteral("roofline_model.csv")); });
    connect(m_chart, &RooflineChart::opClicked, this, &RooflinePanel::activateOp);
    onRowActivated(m_table, this, [this](const QModelIndex &index) {
        const QString name = index.data(RooflinePointsModel::kOpNameRole).toString();
        if (!name.isEmpty())
            activateOp(name);
    });
}

RooflinePanel::~RooflinePanel() = default;

QString RooflinePanel::notApplicableReason(const core::Trace &trace)
{
    return xlaToolReason(trace, tr("The Roofline Model places XLA (HLO) ops"));
}

void RooflinePanel::setAnalyses(AnalysisCachePtr cache)
{
    m_compute.cancel();
    m_cache = std::move(cache);
    m_roofline.reset();
    showPoints();
    if (!m_cache) {
        m_status->setText(tr("No profile"));
        return;
    }
    // A capture without XLA ops says why instead of computing an empty model.
    const QString why = notApplicableReason(m_cache->trace());
    m_category->setEnabled(why.isEmpty());
    m_boundBy->setEnabled(why.isEmpty());
    if (!why.isEmpty()) {
        m_empty->setText(why);
        m_stack->setCurrentWidget(m_empty);
        m_status->setText(tr("No XLA ops"));
        return;
    }
    m_stack->setCurrentIndex(0);
    m_status->setText(tr("Computing..."));
    AnalysisCachePtr c = m_cache;
    m_compute.start([c] { return rooflineModel(*c); });
}

QString RooflinePanel::statusText() const
{
    return m_status->text();
}

void RooflinePanel::activateOp(const QString &name)
{
    emit opSelected(name);
    emit opActivated(name);
}

void RooflinePanel::showModel(std::shared_ptr<const RooflineModel> model)
{
    m_roofline = std::move(model);
    std::set<QString> categories;
    for (const RooflinePoint &p : m_roofline->points) {
        if (p.kind == RooflinePoint::Kind::Op)
            categories.insert(QString::fromStdString(p.category));
    }
    setCategoryChoices(m_category, categories);
    showPoints();
    emit computed();
}

void RooflinePanel::showPoints()
{
    if (!m_roofline) {
        m_chart->clear();
        m_model->setPoints(nullptr, {});
        m_export->setEnabled(false);
        return;
    }
    const QString category = m_category->currentData().toString();
    const QString bound = m_boundBy->currentData().toString();
    const std::string categoryText = category.toStdString();
    const std::string boundText = bound.toStdString();
    std::vector<uint32_t> rows;
    size_t ops = 0;
    for (size_t i = 0; i < m_roofline->points.size(); ++i) {
        const RooflinePoint &p = m_roofline->points[i];
        const bool op = p.kind == RooflinePoint::Kind::Op;
        if (op && !categoryText.empty() && p.category != categoryText)
            continue;
        if (!boundText.empty() && p.boundBy != boundText)
            continue;
        rows.push_back(uint32_t(i));
        ops += op ? 1 : 0;
    }
    m_chart->show(m_roofline, rows);
    m_model->setPoints(m_roofline, std::move(rows));
    m_export->setEnabled(m_model->rowCount() > 0);
    for (int c = RooflinePointsModel::Occurrences; c <= RooflinePointsModel::Intensity; ++c)
        m_table->resizeColumnToContents(c);

    QString status;
    if (!m_roofline->deviceType.empty())
        status = QString::fromStdString(m_roofline->deviceType) + QStringLiteral(": ");
    if (m_roofline->peakGigaFlopsPerSecond > 0) {
        status += tr("peak %L1 GFLOP/s").arg(m_roofline->peakGigaFlopsPerSecond, 0, 'f', 0);
        for (const Roofline &r : m_roofline->rooflines) {
            status += tr("; %1 %L2 GB/s, ridge point %L3 FLOP/byte")
                          .arg(QString::fromStdString(r.memory))
                          .arg(r.peakGigaBytesPerSecond, 0, 'f', 0)
                          .arg(r.ridgePoint, 0, 'f', 2);
        }
    }
    status += tr(" - %L1 points (%L2 ops)").arg(m_model->rowCount()).arg(ops);
    if (m_chart->pointCount() < m_model->rowCount())
        status += tr(", %L1 without FLOPs or bytes not drawn")
                      .arg(m_model->rowCount() - m_chart->pointCount());
    if (m_roofline->source != "profile")
        status += tr(" - recorded by XProf (%1)").arg(QString::fromStdString(m_roofline->source));
    if (!m_roofline->note.empty())
        status += QStringLiteral(" - ") + QString::fromStdString(m_roofline->note);
    m_status->setText(status);
}

} // namespace tracedesk::views
