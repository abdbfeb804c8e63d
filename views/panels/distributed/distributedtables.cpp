#include "views/panels/distributed/distributedtables.h"

#include "views/common/qtconvert.h"

#include <QCoreApplication>
#include <QLocale>
#include <QStandardItemModel>

#include <cmath>

namespace tracedesk::views {

using namespace core::analysis::distributed;

namespace {

QString tr(const char *text, const char *disambiguation = nullptr, int n = -1)
{
    return QCoreApplication::translate("DistributedTables", text, disambiguation, n);
}

// Milliseconds, rounded to the microsecond.
double ms(core::TimePs ps)
{
    return std::round(double(ps) / 1e6) / 1000.0;
}

QStandardItem *number(double v)
{
    auto *item = new QStandardItem;
    item->setData(v, Qt::DisplayRole);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    item->setEditable(false);
    return item;
}

QStandardItem *text(const QString &s)
{
    auto *item = new QStandardItem(s);
    item->setEditable(false);
    return item;
}

QString sizeText(int64_t bytes)
{
    if (bytes < 0)
        return QStringLiteral("—");
    return QLocale().formattedDataSize(bytes, 1, QLocale::DataSizeTraditionalFormat);
}

void reset(QStandardItemModel *model, const QStringList &headers)
{
    model->clear();
    model->setColumnCount(int(headers.size()));
    model->setHorizontalHeaderLabels(headers);
}

} // namespace

void fillRankSteps(QStandardItemModel *model, const DistributedSummary &summary,
                   const std::string &step)
{
    reset(model, {tr("Rank"), tr("Step"), tr("Step (ms)"), tr("Compute (ms)"), tr("Comm. (ms)"),
                  tr("Overlap (ms)"), tr("Exposed (ms)"), tr("Idle (ms)")});
    const char *const tips[] = {
        "Click to open this rank's section on the timeline",
        "Click a step's row to zoom the timeline to it on every rank",
        "Step time: the step as the PyTorch view adjusts it to its GPU work",
        "Union of the computation kernels in the step",
        "Union of the communication kernels in the step (the Overview's \"communication "
        "kernels run\" figure)",
        "Time when computation and communication kernels run together",
        "Communication not hidden behind computation kernels. The Overview's Communication "
        "category is the same time less what memcpy / memset also hide",
        "Step time with no kernel running"};
    for (int c = 0; c < RankStepColumnCount; ++c)
        model->horizontalHeaderItem(c)->setToolTip(tr(tips[c]));
    for (size_t r = 0; r < summary.ranks.size(); ++r) {
        const RankSummary &rank = summary.ranks[r];
        for (size_t s = 0; s < rank.steps.size(); ++s) {
            const RankStep &st = rank.steps[s];
            if (!step.empty() && st.name != step)
                continue;
            QStandardItem *first = number(double(rank.rank));
            first->setData(qulonglong(r), kSummaryIndexRole);
            first->setData(qulonglong(s), kStepIndexRole);
            first->setToolTip(tr("Click to open this rank's section on the timeline"));
            QStandardItem *name = text(QString::fromStdString(st.name));
            name->setToolTip(tr("Click a step's numbers to zoom the timeline to it"));
            model->appendRow({first, name, number(ms(st.duration())), number(ms(st.computation)),
                              number(ms(st.communication)), number(ms(st.overlap)),
                              number(ms(st.exposedCommunication)), number(ms(st.idle))});
        }
    }
}

void fillStragglers(QStandardItemModel *model, const DistributedSummary &summary)
{
    reset(model, {tr("Collective"), tr("Name"), tr("Start spread (ms)"), tr("End spread (ms)"),
                  tr("Last rank"), tr("Waiting caused (ms)")});
    for (size_t i = 0; i < summary.collectives.size(); ++i) {
        const MatchedCollective &c = summary.collectives[i];
        QStandardItem *first = number(double(c.index));
        first->setData(qulonglong(i), kSummaryIndexRole);
        QStandardItem *name = text(QString::fromStdString(c.name) + QStringLiteral(" #")
                                   + QString::number(c.occurrence));
        name->setToolTip(QString::fromStdString(c.kind) + QStringLiteral(", on ")
                         + countOf(c.ranks.size(), "rank", "ranks"));
        model->appendRow({first, name, number(ms(c.startSpread)), number(ms(c.endSpread)),
                          number(double(c.lastRank)), number(ms(c.waitingCaused))});
    }
}

void fillWaitingRanks(QStandardItemModel *model, const DistributedSummary &summary)
{
    reset(model, {tr("Rank"), tr("Waiting caused (ms)"), tr("Last in")});
    for (const Straggler &s : summary.stragglers) {
        QStandardItem *first = number(double(s.rank));
        for (size_t r = 0; r < summary.ranks.size(); ++r) {
            if (summary.ranks[r].rank == s.rank)
                first->setData(qulonglong(r), kSummaryIndexRole);
        }
        QStandardItem *last = number(double(s.collectivesLast));
        last->setToolTip(tr("Collectives this rank arrived at last"));
        model->appendRow({first, number(ms(s.waitingCaused)), last});
    }
}

void fillCollectiveStats(QStandardItemModel *model, const DistributedSummary &summary)
{
    reset(model, {tr("Name"), tr("Kind"), tr("Rank"), tr("Count"), tr("Total (ms)"),
                  tr("Mean (ms)"), tr("Data size")});
    for (size_t i = 0; i < summary.collectiveStats.size(); ++i) {
        const CollectiveStats &s = summary.collectiveStats[i];
        auto row = [&](const CollectiveCount &c, const QString &rank) {
            QStandardItem *first = text(QString::fromStdString(s.name));
            first->setData(qulonglong(i), kSummaryIndexRole);
            first->setToolTip(QString::fromStdString(s.name));
            QStandardItem *size = text(sizeText(c.bytes));
            size->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            model->appendRow({first, text(QString::fromStdString(s.kind)), text(rank),
                              number(double(c.count)), number(ms(c.total)), number(ms(c.mean())),
                              size});
        };
        row(s.all, tr("all"));
        for (const CollectiveCount &c : s.perRank)
            row(c, QString::number(c.rank));
    }
}

} // namespace tracedesk::views
